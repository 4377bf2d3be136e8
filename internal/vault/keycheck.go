package vault

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// KeyCheckSubject is the reserved subject whose data key is the key-check record: created at the first
// start under the master key of the day, re-sealed by Rotate like every data key, and opened at every
// start by CheckMasterKeys. No secret is ever sealed for it. Its ':' keeps it apart from user ids
// (UUIDs) and "system".
const KeyCheckSubject = "vault:key-check"

// ErrWrongMasterKey is matched (errors.Is) by every *WrongMasterKeyError.
var ErrWrongMasterKey = errors.New("vault: wrong master key")

// WrongMasterKeyError says that neither ENCRYPTION_KEY nor ENCRYPTION_KEY_PREVIOUS opens the data keys
// already in the database: the server must not start, or every secret would fail at its first use.
type WrongMasterKeyError struct {
	Expected string   // id of the master key that seals the checked data key
	Current  string   // id of ENCRYPTION_KEY
	Previous []string // ids of ENCRYPTION_KEY_PREVIOUS, sorted
	Cause    error    // set when a key with the expected id was given but the data key still did not open
}

func (e *WrongMasterKeyError) Error() string {
	prev := "none"
	if len(e.Previous) > 0 {
		prev = strings.Join(e.Previous, ", ")
	}
	msg := fmt.Sprintf("vault: the database's data keys are sealed under master key id %s, but %s has id %s and %s has ids: %s; "+
		"set %s to the key with id %s (or, while rotating, put that key in %s)",
		e.Expected, EnvKey, e.Current, EnvPreviousKey, prev, EnvKey, e.Expected, EnvPreviousKey)
	if e.Cause != nil {
		msg += ": " + e.Cause.Error()
	}
	return msg
}

func (e *WrongMasterKeyError) Is(target error) bool { return target == ErrWrongMasterKey }

func (e *WrongMasterKeyError) Unwrap() error { return e.Cause }

// CheckMasterKeys proves at start that the master keys given open what the database holds. It opens the
// key-check record; when there is none yet (a new database, or one from before the record existed) it
// opens the most recently created data key, if any, and then writes the record under the current
// master key. It fails with a *WrongMasterKeyError when no given master key opens them.
func (v *Vault) CheckMasterKeys(ctx context.Context) error {
	rows, err := v.keys.load(ctx, KeyCheckSubject)
	if err != nil {
		return fmt.Errorf("vault: key check: %w", err)
	}
	haveRecord := len(rows) > 0
	if !haveRecord {
		r, found, err := v.keys.newest(ctx)
		if err != nil {
			return fmt.Errorf("vault: key check: %w", err)
		}
		if found {
			rows = []keyRow{r}
		}
	}
	for _, r := range rows {
		if _, err := v.unsealDataKey(r); err != nil {
			werr := &WrongMasterKeyError{Expected: r.masterID, Current: v.current.ID(), Previous: v.previousIDs()}
			if _, given := v.masters[r.masterID]; given {
				werr.Cause = err
			}
			return werr
		}
	}
	if haveRecord {
		return nil
	}
	if err := v.createFirstKey(ctx, KeyCheckSubject); err != nil {
		return fmt.Errorf("vault: key check: write the record: %w", err)
	}
	v.Forget(KeyCheckSubject)
	return nil
}

func (v *Vault) previousIDs() []string {
	var ids []string
	for id := range v.masters {
		if id != v.current.ID() {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// newest returns the most recently created data key, if there is one.
func (s *keyStore) newest(ctx context.Context) (keyRow, bool, error) {
	var r keyRow
	err := s.db.QueryRowContext(ctx,
		`SELECT subject, version, master_id, sealed_key FROM vault_data_keys ORDER BY created_at DESC, subject, version LIMIT 1`).
		Scan(&r.subject, &r.version, &r.masterID, &r.sealedKey)
	if errors.Is(err, sql.ErrNoRows) {
		return keyRow{}, false, nil
	}
	if err != nil {
		return keyRow{}, false, fmt.Errorf("read a data key: %w", err)
	}
	return r, true, nil
}
