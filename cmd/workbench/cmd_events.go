package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/workbench/workbench/eventstore"
)

// cmdEvents: `events tail [--from POS] [-f]` prints the log as JSON lines, one envelope a line, from
// the event after POS (default: the beginning). With -f it keeps following new events until stopped.
func cmdEvents(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "tail" {
		fmt.Fprint(stderr, "usage: workbench events tail [--from POS] [-f]\n")
		return errUsage
	}
	fs := flag.NewFlagSet("events tail", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fromFlag := fs.String("from", "", "print events after this position (COMMIT/PREPARE, or a number on SQLite)")
	follow := fs.Bool("f", false, "keep following new events")
	if err := fs.Parse(args[1:]); err != nil {
		return errUsage
	}
	from := eventstore.Start
	if *fromFlag != "" {
		p, err := eventstore.ParsePosition(*fromFlag)
		if err != nil {
			return fmt.Errorf("--from: %w", err)
		}
		from = p
	}
	m, err := openMain(ctx, getenv, stderr, nil)
	if err != nil {
		return err
	}
	defer m.Close()
	return tailEvents(ctx, m.Store, from, *follow, stdout)
}

func tailEvents(ctx context.Context, store eventstore.Store, from eventstore.Position, follow bool, stdout io.Writer) error {
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	if follow {
		err := store.Subscribe(ctx, from, func(env eventstore.Envelope) error {
			if err := enc.Encode(env); err != nil {
				return err
			}
			return w.Flush()
		})
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	for {
		envs, err := store.ReadAll(ctx, from, 1000)
		if err != nil {
			return err
		}
		for _, env := range envs {
			if err := enc.Encode(env); err != nil {
				return err
			}
			from = env.Position
		}
		if len(envs) < 1000 {
			return nil
		}
	}
}
