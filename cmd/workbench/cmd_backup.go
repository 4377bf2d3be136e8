package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/internal/config"
)

// cmdBackup copies the SQLite database into a new file with VACUUM INTO: one read transaction, so the
// copy is consistent while the server keeps serving and appending. On PostgreSQL it says to use
// pg_dump (see deploy/README.md). The encryption key is not in the copy: back it up separately.
func cmdBackup(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	to := fs.String("to", "", "the file to write (must not exist)")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 || *to == "" {
		fmt.Fprint(stderr, "usage: workbench backup --to PATH\n")
		return errUsage
	}
	cfg, err := config.FromEnv(getenv)
	if err != nil {
		return err
	}
	if cfg.Database != config.SQLite {
		return errors.New("backup: DATABASE_URL is PostgreSQL: use pg_dump --format=custom and pg_restore (deploy/README.md)")
	}
	if strings.ContainsAny(*to, "?#") || strings.HasPrefix(*to, "file:") {
		return fmt.Errorf("backup: --to %q: want a plain file path", *to)
	}
	target, err := filepath.Abs(*to)
	if err != nil {
		return err
	}
	if _, err := os.Stat(target); err == nil {
		return fmt.Errorf("backup: %s exists: name a new file", target)
	}
	src := cfg.SQLitePath()
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("backup: the database %s (DATABASE_URL): %w", src, err)
	}
	db, err := sqlite.OpenDB(ctx, src)
	if err != nil {
		return fmt.Errorf("backup: open %s: %w", src, err)
	}
	defer db.Close()
	start := time.Now()
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, target); err != nil {
		return fmt.Errorf("backup: copy %s into %s: %w", src, target, err)
	}
	if err := os.Chmod(target, 0o600); err != nil {
		return err
	}
	var size int64
	if st, err := os.Stat(target); err == nil {
		size = st.Size()
	}
	fmt.Fprintf(stdout, "backed up %s into %s (%d bytes) in %s; the encryption key is not in it: keep ENCRYPTION_KEY (or %s) as well\n",
		src, target, size, time.Since(start).Round(time.Millisecond), filepath.Join(cfg.DataDir, "encryption.key"))
	return nil
}
