package vault

import (
	"context"
	"database/sql"
	"fmt"
)

// KeyVerdict is what VerifyMasterKeys found.
type KeyVerdict struct {
	// Checked is the subject of the data key that was opened: KeyCheckSubject, or the newest data key's
	// subject on a database from before the key-check record, or "" when the database holds no data
	// key yet (any key will do; the first start writes the record under it).
	Checked string
	// MasterID is the id of the master key that sealed the checked data key ("" when none).
	MasterID string
}

// VerifyMasterKeys is CheckMasterKeys without writing anything: it opens the key-check record (or, when
// there is none, the newest data key) with the master keys given and reports which it opened, or a
// *WrongMasterKeyError. The key tables must exist (the database migrated). `workbench doctor` uses it to
// check a deployment's key before a server starts on it.
func VerifyMasterKeys(ctx context.Context, db *sql.DB, current MasterKey, previous []MasterKey) (KeyVerdict, error) {
	if current.IsZero() {
		return KeyVerdict{}, fmt.Errorf("vault: no current master key (%s)", EnvKey)
	}
	v := &Vault{keys: &keyStore{db: db}, current: current, masters: map[string]MasterKey{current.ID(): current}}
	for _, p := range previous {
		if !p.IsZero() {
			v.masters[p.ID()] = p
		}
	}
	rows, err := v.keys.load(ctx, KeyCheckSubject)
	if err != nil {
		return KeyVerdict{}, fmt.Errorf("vault: key check: %w", err)
	}
	if len(rows) == 0 {
		r, found, err := v.keys.newest(ctx)
		if err != nil {
			return KeyVerdict{}, fmt.Errorf("vault: key check: %w", err)
		}
		if !found {
			return KeyVerdict{}, nil
		}
		rows = []keyRow{r}
	}
	var verdict KeyVerdict
	for _, r := range rows {
		if _, err := v.unsealDataKey(r); err != nil {
			werr := &WrongMasterKeyError{Expected: r.masterID, Current: current.ID(), Previous: v.previousIDs()}
			if _, given := v.masters[r.masterID]; given {
				werr.Cause = err
			}
			return KeyVerdict{}, werr
		}
		verdict = KeyVerdict{Checked: r.subject, MasterID: r.masterID}
	}
	return verdict, nil
}
