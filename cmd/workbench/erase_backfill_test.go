package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/compliance"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/auditrm/audittest"
	"github.com/workbench/workbench/projections/identityrm"
)

// runCLI runs one workbench command against env and returns its stdout.
func runCLI(t *testing.T, env map[string]string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	if err := run(ctx, args, envFunc(env), &out, &errOut); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, errOut.String())
	}
	return out.String()
}

// eraseCLI erases the user of email with `workbench users erase`.
func eraseCLI(t *testing.T, env map[string]string, email string) compliance.Erasure {
	t.Helper()
	var erased compliance.Erasure
	if err := json.Unmarshal([]byte(runCLI(t, env, "users", "erase", "--email", email)), &erased); err != nil {
		t.Fatal(err)
	}
	return erased
}

// waitPersonal waits, at most 20 s, until the organizations read model of s lists the personal
// organisation of user.
func waitPersonal(t *testing.T, s *e2eServer, user uuid.UUID, who string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := s.M.Organizations.Reader().Organization(context.Background(), organization.PersonalOrganizationID(user)); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never got a personal organisation from the boot backfill; server log:\n%s", who, s.logs.tail(8<<10))
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// backfillAgain runs the organisation backfill once more, as a boot does: with every user served or
// passed over, it makes nothing and reports nothing.
func backfillAgain(t *testing.T, s *e2eServer) {
	t.Helper()
	if n, err := s.M.Organizations.Backfill(context.Background(), eventstore.Metadata{Actor: "system"}); n != 0 || err != nil {
		t.Errorf("a second backfill made %d organisations: %v", n, err)
	}
}

// logHolds returns the type of the first event of the log whose data or metadata holds needle (any
// case), "" when none does.
func logHolds(t *testing.T, store eventstore.Store, needle string) string {
	t.Helper()
	var from eventstore.Position
	for {
		page, err := store.ReadAll(context.Background(), from, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page {
			md, _ := json.Marshal(e.Metadata)
			if strings.Contains(strings.ToLower(string(e.Data)), needle) || strings.Contains(strings.ToLower(string(md)), needle) {
				return e.Type
			}
		}
		if len(page) < 1000 {
			return ""
		}
		from = page[len(page)-1].Position
	}
}

// TestEraseLeavesNoAddressAndBackfillGoesOn: Dora gets a sign-in link from the CLI and a personal
// organisation at the next boot; she is erased with `workbench users erase`; Erin gets a link after
// her. At the following boot Erin gets her personal organisation (the backfill passes over the erased
// user), and no event of the log, nor any table, holds Dora's address readably.
func TestEraseLeavesNoAddressAndBackfillGoesOn(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "wb.db")
	env := map[string]string{"DATABASE_URL": db, "SERVER_PUBLIC_URL": "http://127.0.0.1:1"}
	runCLI(t, env, "signin-link", "--email", "Dora@Example.com")
	var dora uuid.UUID
	t.Run("first boot", func(t *testing.T) {
		s := startE2E(t, db, nil, slog.LevelInfo)
		u, err := (identityrm.Reader{DB: s.M.DB}).UserByEmail(context.Background(), "dora@example.com")
		if err != nil {
			t.Fatal(err)
		}
		dora = u.ID
		waitPersonal(t, s, dora, "Dora")
	})
	if t.Failed() {
		return
	}
	erased := eraseCLI(t, env, "dora@example.com")
	runCLI(t, env, "signin-link", "--email", "erin@example.com")

	s := startE2E(t, db, nil, slog.LevelInfo)
	erin, err := (identityrm.Reader{DB: s.M.DB}).UserByEmail(context.Background(), "erin@example.com")
	if err != nil {
		t.Fatal(err)
	}
	waitPersonal(t, s, erin.ID, "Erin, signed up after an erased user")
	if typ := logHolds(t, s.M.Store, "dora@example.com"); typ != "" {
		t.Errorf("the erased address is readable in a %s event", typ)
	}
	if err := s.M.Runner.Rebuild(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	if where := findText(t, s.M.DB, "dora@example.com"); where != "" {
		t.Errorf("the erased address is in %s after a rebuild", where)
	}
	members, err := s.M.Organizations.Reader().Members(context.Background(), organization.PersonalOrganizationID(dora))
	if err != nil || len(members) != 1 || members[0].Email != erased.Pseudonym {
		t.Errorf("Dora's personal organisation lists %+v (%v), want her pseudonym %s", members, err, erased.Pseudonym)
	}
	// A member whose address the log holds sealed is still listed by it.
	if members, err := s.M.Organizations.Reader().Members(context.Background(), organization.PersonalOrganizationID(erin.ID)); err != nil || len(members) != 1 || members[0].Email != "erin@example.com" {
		t.Errorf("Erin's personal organisation lists %+v (%v)", members, err)
	}
	// The search finds what is there (Erin's id; her address is sealed too).
	if typ := logHolds(t, s.M.Store, erin.ID.String()); typ == "" {
		t.Error("the log search finds nothing of Erin")
	}
	backfillAgain(t, s)
}

// TestEraseOldLogBackfillGoesOn: a log written before addresses were sealed (audittest: user_created
// and signin_link.issued carry Bob's address in clear) still opens after Bob is erased; the next boot
// passes over him and gives the users after him their personal organisation, and no table but the
// event log holds his address.
func TestEraseOldLogBackfillGoesOn(t *testing.T) {
	t.Parallel()
	env, m := auditEnv(t, 0)
	if _, _, err := audittest.AppendAccess(context.Background(), m.Store); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	env["SERVER_PUBLIC_URL"] = "http://127.0.0.1:1"
	eraseCLI(t, env, "bob@example.com")
	// Audittest's ids are all zeros but a tail, so Erin's random id sorts after Ada's and Bob's.
	runCLI(t, env, "signin-link", "--email", "erin@example.com")

	s := startE2E(t, env["DATABASE_URL"], nil, slog.LevelInfo)
	erin, err := (identityrm.Reader{DB: s.M.DB}).UserByEmail(context.Background(), "erin@example.com")
	if err != nil {
		t.Fatal(err)
	}
	waitPersonal(t, s, erin.ID, "Erin, after the erased Bob")
	// Bob is erased; Ada's data key was shredded (audittest), so nothing can be sealed for her: the
	// backfill passes over both without stopping.
	for who, id := range map[string]uuid.UUID{"the erased Bob": audittest.Bob, "Ada, whose key is shredded": audittest.Ada} {
		if _, err := s.M.Organizations.Reader().Organization(context.Background(), organization.PersonalOrganizationID(id)); err == nil {
			t.Errorf("%s was given a personal organisation", who)
		}
	}
	backfillAgain(t, s)
	if where := findText(t, s.M.DB, "bob@example.com", "events"); where != "" {
		t.Errorf("the erased address is in %s", where)
	}
}
