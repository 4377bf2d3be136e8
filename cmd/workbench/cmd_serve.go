package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/workbench/workbench/internal/tracing"
	"github.com/workbench/workbench/migrations"
)

func cmdServe(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	// Traces go to OTEL_EXPORTER_OTLP_ENDPOINT when it is set; otherwise tracing costs nothing.
	shutdownTracing, traced, err := tracing.Setup(ctx, getenv, binaryVersion())
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = shutdownTracing(sctx)
	}()
	m, err := openMain(ctx, getenv, stderr, nil)
	if err != nil {
		return err
	}
	defer m.Close()
	if traced {
		m.Logger.Info("tracing: spans go to " + tracing.EnvEndpoint)
	}
	return m.Serve(ctx)
}

// cmdMigrate applies pending migrations; with --create-role NAME it then creates (or brings up to date)
// the server's least-privilege PostgreSQL role (migrations.CreateServerRole).
func cmdMigrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	role := fs.String("create-role", "", "PostgreSQL only: create or update this login role for the server: INSERT/SELECT on events, no UPDATE/DELETE there, read/write on the read models")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return errUsage
	}
	m, err := openMain(ctx, getenv, stderr, nil)
	if err != nil {
		return err
	}
	defer m.Close()
	if *role != "" {
		if m.Dialect != migrations.Postgres {
			return errors.New("migrate --create-role needs PostgreSQL (DATABASE_URL): SQLite has no roles")
		}
		if err := migrations.CreateServerRole(ctx, m.DB, *role); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "role %s may log in, read and append to events (never update or delete them) and use the read models; "+
			"give it a password (ALTER ROLE %s PASSWORD ...) and put it in the server's DATABASE_URL; run this again after every upgrade\n", *role, *role)
	}
	return m.Close()
}
