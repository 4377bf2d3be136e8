package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/workbench/workbench/internal/config"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/auditrm/audittest"
)

// auditEnv returns the environment of a fresh SQLite data directory whose log holds the audittest
// log and, when extra > 0, that many more tool runs; and a Main opened on it.
func auditEnv(t *testing.T, extra int) (map[string]string, *Main) {
	t.Helper()
	env := map[string]string{"DATABASE_URL": filepath.Join(t.TempDir(), "wb.db")}
	cfg, err := config.FromEnv(envFunc(env))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m := NewMain(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(func() { m.Close() })
	if err := m.Open(ctx); err != nil {
		t.Fatal(err)
	}
	audittest.Build(ctx, t, m.Store, m.Vault)
	if extra > 0 {
		if err := audittest.AppendToolRuns(ctx, m.Store, audittest.Bob, audittest.Day1.AddDate(0, 1, 0), extra, 4); err != nil {
			t.Fatal(err)
		}
	}
	return env, m
}

func TestAuditReplayCommand(t *testing.T) {
	t.Parallel()
	env, m := auditEnv(t, 0)
	if err := m.Close(); err != nil { // the command opens the database itself
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		args    []string
		records int
		check   func(t *testing.T, out string)
	}{
		{"everything as JSON lines", nil, 20, func(t *testing.T, out string) {
			if !strings.HasPrefix(out, `{"time":"2025-03-01T09:10:00Z",`) {
				t.Errorf("first line %.80q", out)
			}
		}},
		{"one user as CSV", []string{"--user", "Ada@Example.com", "--format", "csv"}, 14, func(t *testing.T, out string) {
			rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			if err != nil || strings.Join(rows[0], ",") != strings.Join(auditrm.CSVHeader, ",") {
				t.Fatalf("CSV header %v: %v", rows[0], err)
			}
			for _, row := range rows[1:] {
				if row[5] != "ada@example.com" {
					t.Errorf("row of %q", row[5])
				}
			}
		}},
		{"integration over dates", []string{"--integration", "github", "--from", "2025-03-02", "--to", "2025-03-04"}, 4, nil},
		{"times", []string{"--from", "2025-03-01T11:00:00Z", "--to", "2025-03-01T13:00:00+00:00"}, 2, nil},
		{"nobody", []string{"--user", "carol@example.com"}, 0, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := append([]string{"audit", "replay"}, tc.args...)
			if err := run(context.Background(), args, envFunc(env), &out, &errOut); err != nil {
				t.Fatalf("%v\n%s", err, errOut.String())
			}
			lines := strings.Count(out.String(), "\n")
			if slices.Contains(tc.args, "csv") {
				lines-- // the header
			}
			if lines != tc.records {
				t.Fatalf("%d records, want %d:\n%s", lines, tc.records, out.String())
			}
			if !strings.Contains(errOut.String(), "audit replay: done: 24 events scanned") {
				t.Errorf("no summary on stderr:\n%s", errOut.String())
			}
			if tc.records == 0 && !strings.Contains(errOut.String(), `no user with the email "carol@example.com"`) {
				t.Errorf("no word about the unknown user:\n%s", errOut.String())
			}
			if tc.check != nil {
				tc.check(t, out.String())
			}
		})
	}
}

// Progress lines come while the replay runs (every batch here, every two seconds in the command),
// then the summary.
func TestAuditReplayProgress(t *testing.T) {
	t.Parallel()
	_, m := auditEnv(t, 2500)
	var out, errOut bytes.Buffer
	if err := replayAudit(context.Background(), m, auditrm.Filter{}, auditrm.FormatCSV, &out, &errOut, 0); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	if len(lines) < 3 {
		t.Fatalf("stderr:\n%s", errOut.String())
	}
	for _, l := range lines[:len(lines)-1] {
		if !strings.HasPrefix(l, "audit replay: ") || !strings.Contains(l, "events scanned") || !strings.Contains(l, "events/s, at position ") {
			t.Errorf("progress line %q", l)
		}
	}
	if want := "audit replay: done: 2524 events scanned, 2520 records written in "; !strings.HasPrefix(lines[len(lines)-1], want) {
		t.Errorf("summary %q, want it to start %q", lines[len(lines)-1], want)
	}
}

func TestAuditReplayBadFlags(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"no subcommand", []string{"audit"}, "usage: workbench audit replay"},
		{"unknown subcommand", []string{"audit", "export"}, "usage: workbench audit replay"},
		{"unknown flag", []string{"audit", "replay", "--since", "2025-01-01"}, "flag provided but not defined: -since"},
		{"bad from", []string{"audit", "replay", "--from", "last week"}, `--from "last week" is neither an RFC 3339 time`},
		{"bad to", []string{"audit", "replay", "--to", "2025-13-01"}, `--to "2025-13-01" is neither`},
		{"from after to", []string{"audit", "replay", "--from", "2025-03-05", "--to", "2025-03-01"}, "the time range is empty: --from is 2025-03-05T00:00:00Z and --to ends before 2025-03-02T00:00:00Z"},
		{"from equals to", []string{"audit", "replay", "--from", "2025-03-01T10:00:00Z", "--to", "2025-03-01T12:00:00+02:00"}, "the time range is empty"},
		{"unknown format", []string{"audit", "replay", "--format", "xml"}, `--format "xml": want jsonl or csv`},
		{"bad user", []string{"audit", "replay", "--user", "ada"}, `--user: "ada" is not an email address`},
		{"stray argument", []string{"audit", "replay", "now"}, `unexpected argument "now"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			// No environment: bad flags are refused before any database is opened.
			err := run(context.Background(), tc.args, envFunc(nil), &out, &errOut)
			if !errors.Is(err, errUsage) {
				t.Fatalf("err %v, want the usage error", err)
			}
			if !strings.Contains(errOut.String(), tc.want) || out.Len() != 0 {
				t.Errorf("stderr %q, want it to contain %q; stdout %q", errOut.String(), tc.want, out.String())
			}
		})
	}
}

// TestAuditReplayAccess: the command emits the access records (sign-in, OAuth client registration,
// grant, revocation) with the client's name; stdout holds records only, and stderr's summary comes
// after the start-up log lines.
func TestAuditReplayAccess(t *testing.T) {
	t.Parallel()
	env, m := auditEnv(t, 0)
	if _, _, err := audittest.AppendAccess(context.Background(), m.Store); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"audit", "replay", "--user", "bob@example.com"}, envFunc(env), &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	kinds := map[auditrm.Kind]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r auditrm.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.Kind == "" {
			t.Fatalf("stdout holds something other than a record: %q (%v)", line, err)
		}
		kinds[r.Kind] = r.ClientName
	}
	for k, name := range map[auditrm.Kind]string{auditrm.KindSigninLinkIssued: "", auditrm.KindSignedIn: "", auditrm.KindOAuthGranted: audittest.ClientName, auditrm.KindOAuthTokensRevoked: audittest.ClientName} {
		if got, ok := kinds[k]; !ok || got != name {
			t.Errorf("kind %s: present %v, client name %q, want %q", k, ok, got, name)
		}
	}
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	started, last := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "plugins loaded") }), lines[len(lines)-1]
	if started < 0 || !strings.HasPrefix(last, "audit replay: done: ") {
		t.Errorf("stderr: the summary does not follow the start-up lines:\n%s", errOut.String())
	}
}
