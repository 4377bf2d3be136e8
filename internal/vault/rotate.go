package vault

import (
	"context"
	"fmt"
)

// Rotate re-seals every data key that is not yet sealed under the current master key, in batches of
// Options.RotateBatchSize, one transaction per batch, calling Options.OnRotateProgress after each. The
// data keys themselves do not change, so no secret in the log needs rewriting. It is idempotent (a
// second run finds nothing to do) and resumable (a run that stops leaves finished batches done). It
// stops with a *MasterKeyMissingError when a data key is sealed under a master key the vault was not
// given. Once it returns with no error, MasterKeyUsage shows only the current id and the previous
// keys can be removed from ENCRYPTION_KEY_PREVIOUS.
func (v *Vault) Rotate(ctx context.Context) (resealed int, err error) {
	cur := v.current.ID()
	total, err := v.keys.countNotUnder(ctx, cur)
	if err != nil {
		return 0, fmt.Errorf("vault: rotate: %w", err)
	}
	afterSubject, afterVersion := "", 0
	for {
		page, err := v.keys.notUnder(ctx, cur, afterSubject, afterVersion, v.batchSize)
		if err != nil {
			return resealed, fmt.Errorf("vault: rotate: %w", err)
		}
		if len(page) == 0 {
			return resealed, nil
		}
		next := make([]keyRow, len(page))
		for i, r := range page {
			key, err := v.unsealDataKey(r)
			if err != nil {
				return resealed, fmt.Errorf("vault: rotate: %w", err)
			}
			sealed, err := v.sealDataKey(r.subject, r.version, key)
			if err != nil {
				return resealed, fmt.Errorf("vault: rotate: %w", err)
			}
			next[i] = keyRow{subject: r.subject, version: r.version, masterID: cur, sealedKey: sealed}
		}
		n, err := v.keys.reseal(ctx, page, next)
		if err != nil {
			return resealed, fmt.Errorf("vault: rotate: %w", err)
		}
		resealed += n
		if v.progress != nil {
			v.progress(resealed, total)
		}
		last := page[len(page)-1]
		afterSubject, afterVersion = last.subject, last.version
	}
}

// MasterKeyUsage counts data keys by the id of the master key that seals them. After a finished
// rotation it holds only CurrentMasterID.
func (v *Vault) MasterKeyUsage(ctx context.Context) (map[string]int, error) {
	u, err := v.keys.usage(ctx)
	if err != nil {
		return nil, fmt.Errorf("vault: %w", err)
	}
	return u, nil
}
