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
	cfg, log, err := loadConfig(getenv, stderr)
	if err != nil {
		return err
	}
	m := NewMain(cfg, log)
	m.Getenv = getenv
	defer m.Close()
	if err := m.Open(ctx); err != nil {
		return err
	}
	return m.Serve(ctx)
}

func cmdMigrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, log, err := loadConfig(getenv, stderr)
	if err != nil {
		return err
	}
	m := NewMain(cfg, log)
	defer m.Close()
	return m.Open(ctx)
}
