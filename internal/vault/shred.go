package vault

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/eventstore"
)

// The shred event. Its stream holds exactly one event per shredded subject.
const (
	EventSubjectShredded  = "vault.subject_shredded"
	subjectShreddedSchema = 1
	shredStreamPrefix     = "vault-subject-"
	reconcilePageSize     = 500
)

// SubjectShredded is the data of a vault.subject_shredded event (schema 1).
type SubjectShredded struct {
	Subject string `json:"subject"`
}

// ShredStream is the stream a subject's shred event is appended to.
func ShredStream(subject string) string { return shredStreamPrefix + subject }

// ShreddedSubject returns the subject a vault.subject_shredded event names; ok is false for any other
// event. The server uses it to call Forget when the bus delivers such an event.
func ShreddedSubject(env eventstore.Envelope) (subject string, ok bool) {
	if env.Type != EventSubjectShredded {
		return "", false
	}
	var d SubjectShredded
	if err := json.Unmarshal(env.Data, &d); err != nil || d.Subject == "" || env.Stream != ShredStream(d.Subject) {
		return "", false
	}
	return d.Subject, true
}

// Shred destroys every data key of subject, which makes every copy of every secret sealed for it, in
// the log, in read models and in backups of either, unreadable for good (crypto-shredding). It appends
// vault.subject_shredded to ShredStream(subject) first (the log is the record), then deletes the keys
// and marks the subject so nothing is sealed for it again. A crash in between is healed by
// ReconcileShreds. Shredding a subject twice appends no second event and succeeds. md is stamped on the
// event; its Time is filled in when zero.
func (v *Vault) Shred(ctx context.Context, subject string, md eventstore.Metadata) error {
	if err := checkSubject(subject); err != nil {
		return err
	}
	data, err := json.Marshal(SubjectShredded{Subject: subject})
	if err != nil {
		return fmt.Errorf("vault: shred %q: %w", subject, err)
	}
	if md.Time.IsZero() {
		md.Time = v.now().UTC()
	}
	ev := eventstore.EventData{
		ID:            uuid.New(),
		Type:          EventSubjectShredded,
		SchemaVersion: subjectShreddedSchema,
		Data:          data,
		Metadata:      md,
	}
	// NoStream: the first shred records the event; a repeated one finds it there and only makes sure
	// the keys are gone.
	_, err = v.store.Append(ctx, ShredStream(subject), eventstore.NoStream, ev)
	if err != nil && !errors.Is(err, eventstore.ErrConflict) {
		return fmt.Errorf("vault: shred %q: append event: %w", subject, err)
	}
	return v.destroy(ctx, subject, md.Time)
}

func (v *Vault) destroy(ctx context.Context, subject string, at time.Time) error {
	v.Forget(subject)
	n, err := v.keys.markShredded(ctx, subject, at.UTC())
	v.Forget(subject) // again: an Open in between may have cached the keys before they were deleted
	if err != nil {
		return fmt.Errorf("vault: shred %q: %w", subject, err)
	}
	if n > 0 {
		v.log.Info("vault: subject shredded", "subject", subject, "data_keys_deleted", n)
	}
	return nil
}

// ReconcileShreds makes the key table agree with the log: for every vault.subject_shredded event it
// deletes whatever keys of that subject are still there (left by a crash between the append and the
// delete, or by a replica that died mid-shred). The server runs it at start, after migrating and before
// serving. It remembers how far it read (vault_shred_checkpoint), so later runs read only new events.
func (v *Vault) ReconcileShreds(ctx context.Context) error {
	from, err := v.keys.shredCheckpoint(ctx)
	if err != nil {
		return fmt.Errorf("vault: reconcile shreds: %w", err)
	}
	healed := 0
	for {
		page, err := v.store.ReadAll(ctx, from, reconcilePageSize)
		if err != nil {
			return fmt.Errorf("vault: reconcile shreds: read log after %s: %w", from, err)
		}
		if len(page) == 0 {
			break
		}
		for _, env := range page {
			subject, ok := ShreddedSubject(env)
			if !ok {
				continue
			}
			if err := checkSubject(subject); err != nil {
				return fmt.Errorf("vault: reconcile shreds: event %s: %w", env.ID, err)
			}
			n, err := v.keys.markShredded(ctx, subject, env.Metadata.Time.UTC())
			v.Forget(subject)
			if err != nil {
				return fmt.Errorf("vault: reconcile shreds: event %s: %w", env.ID, err)
			}
			if n > 0 {
				healed++
				v.log.Warn("vault: deleted data keys of a shredded subject left by an interrupted shred",
					"subject", subject, "data_keys_deleted", n, "event", env.ID)
			}
		}
		from = page[len(page)-1].Position
		if err := v.keys.setShredCheckpoint(ctx, from); err != nil {
			return fmt.Errorf("vault: reconcile shreds: %w", err)
		}
		if len(page) < reconcilePageSize {
			break
		}
	}
	if healed > 0 {
		v.log.Warn("vault: reconciled interrupted shreds", "subjects", healed)
	}
	return nil
}
