package jots

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain/jot"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/jotsrm"
)

// DefaultBlobGrace is how long a blob no live jot references is kept after it was last stored: far
// longer than a deploy takes from storing its bodies to its event being applied to the read model.
const DefaultBlobGrace = 15 * time.Minute

// CollectGarbage deletes the blobs no live jot references (blob stores that are not Sweepers are left
// alone). References are counted from the jots read model, once it has applied every event appended
// before the sweep began: when a first look finds candidates, the sweep appends a jot.SweepStarted marker and waits for the read model to
// apply it, and gives up, deleting nothing, if it cannot. A blob stored (or stored again) within the
// grace period is kept whatever the read model says, which covers a deploy whose bodies are stored but
// whose event is not yet appended; the stores check that age again as they delete (see Sweeper).
func (s *Service) CollectGarbage(ctx context.Context) (Swept, error) {
	sw, ok := s.blobs.(Sweeper)
	if !ok {
		return Swept{}, nil
	}
	if s.waiter == nil {
		return Swept{}, errors.New("jots: blob sweep: no read-model waiter, so references cannot be trusted")
	}
	s.gcMu.Lock()
	defer s.gcMu.Unlock()
	// A first look with the read model as it stands: when nothing is even a candidate, there is
	// nothing to delete and the log is not marked. (A lagging read model can only make more blobs look
	// unreferenced, never fewer, so this look cannot hide garbage that a current one would show, except
	// a jot deleted but not yet projected, which the next sweep collects.)
	live, err := s.liveSums(ctx)
	if err != nil {
		return Swept{}, err
	}
	if found, err := sw.HasGarbage(ctx, func(sum string) bool { return live[sum] }, s.blobGrace); err != nil || !found {
		if err != nil {
			err = fmt.Errorf("jots: blob sweep: %w", err)
		}
		return Swept{}, err
	}
	typ, sv, data, err := jotAgg.Codec.Encode(jot.SweepStarted{StartedAt: s.now().UTC()})
	if err != nil {
		return Swept{}, err
	}
	pos, err := s.store.Append(ctx, jot.SweepStream, eventstore.Any, eventstore.EventData{
		ID: uuid.New(), Type: typ, SchemaVersion: sv, Data: data,
		Metadata: eventstore.Metadata{Actor: "system", Time: s.now().UTC()},
	})
	if err != nil {
		return Swept{}, fmt.Errorf("jots: blob sweep: mark the log: %w", err)
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	err = s.waiter.WaitForProjection(wctx, jotsrm.Name, pos)
	cancel()
	if err != nil {
		return Swept{}, fmt.Errorf("jots: blob sweep: the jots read model has not caught up, so nothing is deleted: %w", err)
	}
	if live, err = s.liveSums(ctx); err != nil {
		return Swept{}, err
	}
	out, err := sw.Sweep(ctx, func(sum string) bool { return live[sum] }, s.blobGrace)
	if err != nil {
		return out, fmt.Errorf("jots: blob sweep: %w", err)
	}
	return out, nil
}

func (s *Service) liveSums(ctx context.Context) (map[string]bool, error) {
	live := map[string]bool{}
	if err := s.reader.LiveSums(ctx, func(sum string) { live[sum] = true }); err != nil {
		return nil, fmt.Errorf("jots: blob sweep: %w", err)
	}
	return live, nil
}

// collectSoon asks RunCollector for a sweep, without waiting: a delete or a redeploy may have left
// blobs unreferenced.
func (s *Service) collectSoon() {
	select {
	case s.gcWake <- struct{}{}:
	default:
	}
}

// RunCollector sweeps unreferenced blobs at start, after every delete, redeploy or update (coalesced:
// one sweep at a time), and every grace period, until ctx ends. A failed sweep is logged and tried
// again at the next occasion.
func (s *Service) RunCollector(ctx context.Context) error {
	t := time.NewTicker(s.blobGrace)
	defer t.Stop()
	for {
		out, err := s.CollectGarbage(ctx)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			s.log.WarnContext(ctx, "jot blob sweep failed", "err", err)
		case out.Blobs > 0:
			s.log.InfoContext(ctx, "jot blobs collected", "blobs", out.Blobs, "bytes", out.Bytes)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-s.gcWake:
		case <-t.C:
		}
	}
}
