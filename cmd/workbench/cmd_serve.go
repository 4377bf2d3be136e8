package main

import (
	"context"
	"flag"
	"io"
)

func cmdServe(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	m, err := openMain(ctx, getenv, stderr, nil)
	if err != nil {
		return err
	}
	defer m.Close()
	return m.Serve(ctx)
}

func cmdMigrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	m, err := openMain(ctx, getenv, stderr, nil)
	if err != nil {
		return err
	}
	return m.Close()
}
