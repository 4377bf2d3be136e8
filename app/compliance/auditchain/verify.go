package auditchain

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"

	"github.com/workbench/workbench/eventstore"
)

// What a Finding found.
const (
	Edited    = "edited"    // the event at Position is not the one that was chained (data, metadata, type, ... changed)
	Deleted   = "deleted"   // the event chained at Position is gone
	Inserted  = "inserted"  // an event at Position was never chained, though later ones were
	Reordered = "reordered" // the event at Position was chained at another place in the order
	Truncated = "truncated" // the log ends before the last sealed head
	BadSeal   = "bad-seal"  // a seal's signature does not verify, or it does not match the chain
)

// Finding is the first place verification failed.
type Finding struct {
	Kind     string              `json:"kind"`
	Position eventstore.Position `json:"position"`
	Seq      int64               `json:"seq"` // the event's number in the chain (1 = first event), when known
	Detail   string              `json:"detail"`
}

func (f Finding) String() string {
	return fmt.Sprintf("%s at position %s (event #%d): %s", f.Kind, f.Position, f.Seq, f.Detail)
}

// Range limits a verification to events at positions From..To, both included; zero values mean the
// start and the end of the log. A range that starts later trusts the stored chain hash just before From
// as its starting point: the seals inside the range check everything after it.
type Range struct {
	From, To eventstore.Position
}

// Report is the outcome of Verify.
type Report struct {
	Events   int64               `json:"events"` // events checked against the chain
	Seals    int                 `json:"seals"`  // seals whose signature and head were checked
	First    eventstore.Position `json:"first"`  // position of the first event checked
	Last     eventstore.Position `json:"last"`   // position of the last event checked
	Head     Row                 `json:"-"`      // the last chain row checked
	LastSeal *Seal               `json:"last_seal,omitempty"`
	// Unsealed counts the events checked after the last seal: their chain rows are there but no
	// signature covers them yet, so whoever can write the database could rewrite them unnoticed.
	Unsealed int64 `json:"unsealed"`
	// Unchained counts events in the range the sealer has not reached yet (the window not yet covered).
	Unchained int64 `json:"unchained"`
	// Problem is the first failure; nil when everything checked verifies.
	Problem *Finding `json:"problem,omitempty"`
}

// OK reports whether nothing failed.
func (r Report) OK() bool { return r.Problem == nil }

// VerifyOptions tune Verify; nil means defaults.
type VerifyOptions struct {
	PageSize int // events and chain rows read at a time (default 1000)
	// Progress, when set, is called after each page with the report so far.
	Progress func(Report)
}

// Verify recomputes the chain from the events the store returns (the events table itself) and checks
// every stored chain row and every seal in r against pub. It stops at the first failure and names it
// in Report.Problem; an error is returned only when verification could not run (a read failed).
func Verify(ctx context.Context, db *sql.DB, store eventstore.Store, pub ed25519.PublicKey, r Range, opts *VerifyOptions) (Report, error) {
	page := DefaultPageSize
	var progress func(Report)
	if opts != nil {
		if opts.PageSize > 0 {
			page = opts.PageSize
		}
		progress = opts.Progress
	}
	if len(pub) != ed25519.PublicKeySize {
		return Report{}, errors.New("auditchain: verify needs an Ed25519 public key")
	}
	inRange := func(p eventstore.Position) bool { return r.To.IsZero() || !r.To.Less(p) }
	var anchor Row
	var err error
	if !r.From.IsZero() {
		if anchor, err = rowBefore(ctx, db, r.From); err != nil {
			return Report{}, err
		}
	}
	var rep Report

	// Seals in the range, each checked for its signature first.
	seals, err := Seals(ctx, db, anchor.Seq, 0)
	if err != nil {
		return rep, err
	}
	bySeq := make(map[int64]Seal, len(seals))
	var lastSeal *Seal
	for i := range seals {
		s := seals[i]
		if !inRange(s.Position) {
			break
		}
		if !s.Verify(pub) {
			rep.Problem = &Finding{Kind: BadSeal, Position: s.Position, Seq: s.Seq,
				Detail: fmt.Sprintf("seal #%d (key %s) does not verify with public key %s", s.Seq, s.KeyID, KeyID(pub))}
			return rep, nil
		}
		bySeq[s.Seq] = s
		lastSeal = &seals[i]
	}
	rep.LastSeal = lastSeal

	prev := anchor
	evFrom := anchor.Position
	var events []eventstore.Envelope
	var rows []Row
	evDone, rowsDone := false, false
	buf := make([]byte, 0, 4096)
	fail := func(kind string, pos eventstore.Position, seq int64, format string, args ...any) (Report, error) {
		rep.Problem = &Finding{Kind: kind, Position: pos, Seq: seq, Detail: fmt.Sprintf(format, args...)}
		return rep, nil
	}
	for {
		if len(events) == 0 && !evDone {
			if events, err = store.ReadAll(ctx, evFrom, page); err != nil {
				return rep, fmt.Errorf("auditchain: read log after %s: %w", evFrom, err)
			}
			if len(events) == 0 {
				evDone = true
			} else {
				evFrom = events[len(events)-1].Position
			}
			if progress != nil {
				progress(rep)
			}
		}
		if len(rows) == 0 && !rowsDone {
			if rows, err = rowsAfter(ctx, db, prev.Seq, page); err != nil {
				return rep, err
			}
			rowsDone = len(rows) == 0
		}
		// Leave out what lies after the range.
		if len(events) > 0 && !inRange(events[0].Position) {
			events, evDone = nil, true
		}
		if len(rows) > 0 && !inRange(rows[0].Position) {
			rows, rowsDone = nil, true
		}
		switch {
		case len(events) == 0 && len(rows) == 0:
			return finish(rep, prev, lastSeal, fail)
		case len(rows) == 0:
			// The chain ends here: the rest is the window the sealer has not reached yet.
			rep.Unchained += int64(len(events))
			events = nil
			continue
		case len(events) == 0:
			row := rows[0]
			return fail(Truncated, row.Position, row.Seq,
				"the log ends after position %s (event #%d) but the chain covers events up to #%d and beyond", prev.Position, prev.Seq, row.Seq)
		}
		ev, row := events[0], rows[0]
		if row.Seq != prev.Seq+1 {
			return fail(Deleted, row.Position, prev.Seq+1,
				"chain rows #%d to #%d are missing before position %s: events and their chain rows were removed", prev.Seq+1, row.Seq-1, row.Position)
		}
		switch {
		case row.Position.Less(ev.Position):
			return fail(Deleted, row.Position, row.Seq, "event %s, chained at this position, is not in the log", row.EventID)
		case ev.Position.Less(row.Position):
			if seq, err := seqOfEvent(ctx, db, ev.ID.String()); err != nil {
				return rep, err
			} else if seq != 0 {
				return fail(Reordered, ev.Position, row.Seq, "event %s is here but was chained as event #%d", ev.ID, seq)
			}
			return fail(Inserted, ev.Position, row.Seq, "event %s was never chained, though events after it were", ev.ID)
		}
		if ev.ID.String() != row.EventID {
			if seq, err := seqOfEvent(ctx, db, ev.ID.String()); err != nil {
				return rep, err
			} else if seq != 0 {
				return fail(Reordered, ev.Position, row.Seq, "event %s is here but was chained as event #%d; event %s was chained here", ev.ID, seq, row.EventID)
			}
			if len(events) > 1 && events[1].ID.String() == row.EventID {
				return fail(Inserted, ev.Position, row.Seq, "event %s was never chained; it stands before event %s, which was chained here", ev.ID, row.EventID)
			}
			return fail(Edited, ev.Position, row.Seq, "event %s stands where event %s was chained", ev.ID, row.EventID)
		}
		buf = Encode(buf[:0], prev.Hash, ev)
		if Hash(sha256.Sum256(buf)) != row.Hash {
			return fail(Edited, ev.Position, row.Seq, "event %s (%s in %s) does not match its chain hash: its content or the chain row was altered", ev.ID, ev.Type, ev.Stream)
		}
		if s, ok := bySeq[row.Seq]; ok {
			if s.Position != row.Position || s.Head != row.Hash {
				return fail(BadSeal, row.Position, row.Seq, "seal #%d signs a different chain head than the log gives here: the chain was rewritten", s.Seq)
			}
			rep.Seals++
		}
		if rep.Events == 0 {
			rep.First = ev.Position
		}
		rep.Events++
		rep.Last = ev.Position
		if lastSeal == nil || row.Seq > lastSeal.Seq {
			rep.Unsealed++
		}
		prev = row
		rep.Head = row
		events, rows = events[1:], rows[1:]
	}
}

// finish checks that no seal lies beyond the last chained event: if one does, the log was truncated.
func finish(rep Report, last Row, lastSeal *Seal, fail func(string, eventstore.Position, int64, string, ...any) (Report, error)) (Report, error) {
	if lastSeal != nil && lastSeal.Seq > last.Seq {
		return fail(Truncated, lastSeal.Position, last.Seq+1,
			"the log ends at event #%d (position %s) but seal #%d covers it up to position %s", last.Seq, last.Position, lastSeal.Seq, lastSeal.Position)
	}
	return rep, nil
}
