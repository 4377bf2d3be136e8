package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"
)

// WriteProbeInterval is how often /readyz checks, at most, that the SQLite data directory takes a
// write; between checks the last result stands.
const WriteProbeInterval = 5 * time.Second

// writeProbeBytes is what the probe writes and syncs: a whole block, so a disk with no free block
// fails it (a tiny write may fit in an inode or be allocated only later).
const writeProbeBytes = 4096

// writeProbe reports whether a directory takes a write, checking at most once per interval.
type writeProbe struct {
	dir      string
	interval time.Duration
	write    func(dir string) error

	mu       sync.Mutex
	at       time.Time
	err      error
	inflight chan error // a write still running after its check gave up on it
}

func (p *writeProbe) check(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.at.IsZero() && time.Since(p.at) < p.interval {
		return p.err
	}
	done := p.inflight
	if done == nil {
		write := p.write
		if write == nil {
			write = writeProbeFile
		}
		done = make(chan error, 1)
		go func() { done <- write(p.dir) }()
	}
	select {
	case err := <-done:
		p.inflight = nil
		p.at, p.err = time.Now(), err
		return err
	case <-ctx.Done():
		// A write that hangs is as bad as one that fails; the next check waits on the same write
		// rather than starting another.
		p.inflight = done
		return fmt.Errorf("the write probe did not finish: %w", ctx.Err())
	}
}

// writeProbeFile creates, writes, syncs and removes a small file in dir.
func writeProbeFile(dir string) error {
	f, err := os.CreateTemp(dir, ".readyz-probe-*")
	if err != nil {
		return err
	}
	name := f.Name()
	defer os.Remove(name)
	if _, err := f.Write(make([]byte, writeProbeBytes)); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeProbeReason is what /readyz answers for a failed probe: no path, no more than the cause.
func writeProbeReason(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return "the store cannot write: the disk is full"
	case errors.Is(err, context.DeadlineExceeded):
		return "the store cannot write: a write to the data directory did not finish"
	default:
		return "the store cannot write to its data directory"
	}
}
