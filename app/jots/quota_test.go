package jots_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/jots"
	"github.com/workbench/workbench/app/jots/jotstest"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/internal/testenv"
)

// A user holds at most MaxJotsPerUser names, live or claimed; a claim never uploaded to expires with
// its upload URL, which frees both the user's count and the name.
func TestJotCountLimitAndClaimExpiry(t *testing.T) {
	c := testenv.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	e := jotstest.New(t, jots.Options{Limits: jots.Limits{MaxJotsPerUser: 2, UploadTTL: time.Minute}, Now: c.Now})
	claim := func(user any, name string) error {
		t.Helper()
		u := alice
		if user == "bob" {
			u = bob
		}
		_, err := e.Service.Deploy(e.Ctx, u, name, jots.SettingsInput{}, md)
		return err
	}
	for _, n := range []string{"one", "two"} {
		if err := claim("alice", n); err != nil {
			t.Fatal(err)
		}
	}
	wantCode(t, claim("alice", "three"), domain.CodeForbidden, "the limit is 2")
	// A name already held is not counted again.
	c.Advance(30 * time.Second)
	if err := claim("alice", "two"); err != nil {
		t.Fatalf("a new upload URL for a held name: %v", err)
	}
	// Another user has a count of their own, and cannot take a claimed name.
	wantCode(t, claim("bob", "one"), domain.CodeForbidden, "belongs to another user")
	if err := claim("bob", "three"); err != nil {
		t.Fatal(err)
	}

	// One minute on, "one" has lapsed (its only upload expired); "two" was claimed again, so it has not.
	c.Advance(30 * time.Second)
	if err := claim("bob", "one"); err != nil {
		t.Fatalf("a lapsed name for another user: %v", err)
	}
	wantCode(t, claim("bob", "two"), domain.CodeForbidden, "belongs to another user")
	wantCode(t, claim("alice", "one"), domain.CodeForbidden, "belongs to another user")
	if err := claim("alice", "four"); err != nil {
		t.Fatalf("alice holds only two now: %v", err)
	}
	wantCode(t, claim("alice", "five"), domain.CodeForbidden, "the limit is 2")

	// A live jot counts for good; deleting it frees the count.
	c.Advance(time.Hour)
	deploy(t, e, alice, "live", jotstest.File{Path: "index.html", Body: "x"})
	deploy(t, e, alice, "live2", jotstest.File{Path: "index.html", Body: "y"})
	c.Advance(time.Hour)
	wantCode(t, claim("alice", "six"), domain.CodeForbidden, "the limit is 2")
	if err := e.Service.Delete(e.Ctx, alice, "live", md); err != nil {
		t.Fatal(err)
	}
	if err := claim("alice", "six"); err != nil {
		t.Fatalf("after a delete: %v", err)
	}
}

// A user's live jots together hold at most QuotaBytes; a deploy or an update past it is refused
// before anything is stored, and a redeploy counts only what replaces the jot's files.
func TestByteQuota(t *testing.T) {
	e := jotstest.New(t, jots.Options{Limits: jots.Limits{QuotaBytes: 100, MaxBytes: 1000}})
	body := func(n int) string { return strings.Repeat("x", n) }
	deploy(t, e, alice, "a", jotstest.File{Path: "index.html", Body: body(60)})
	upload := func(user uuid.UUID, name string, n int) error {
		tk, err := e.Service.Deploy(e.Ctx, user, name, jots.SettingsInput{}, md)
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Service.Upload(e.Ctx, name, token(t, tk), bytes.NewReader(jotstest.Archive(t, jotstest.File{Path: "index.html", Body: body(n) + "!"})), md)
		return err
	}
	wantCode(t, upload(alice, "b", 50), domain.CodeForbidden, "quota of 100 bytes")
	if n := countBlobs(t, e.BlobDir); n != 1 {
		t.Errorf("a refused upload stored a body: %d blobs", n)
	}
	if err := upload(alice, "b", 39); err != nil {
		t.Fatalf("up to the quota: %v", err)
	}
	// A redeploy of "a" replaces its 60 bytes: 59 more fit, 61 do not.
	wantCode(t, upload(alice, "a", 61), domain.CodeForbidden, "quota")
	if err := upload(alice, "a", 59); err != nil {
		t.Fatalf("a redeploy within the quota: %v", err)
	}
	// An update counts the jot's files after it.
	_, err := e.Service.Update(e.Ctx, alice, "b", []jots.FileInput{{Path: "more.txt", Body: []byte("y")}}, jots.SettingsInput{}, md)
	wantCode(t, err, domain.CodeForbidden, "quota")
	if _, err := e.Service.Update(e.Ctx, alice, "b", []jots.FileInput{{Path: "index.html", Body: []byte("z")}}, jots.SettingsInput{}, md); err != nil {
		t.Fatalf("an update that shrinks the jot: %v", err)
	}
	// Another user has a quota of their own.
	if err := upload(bob, "c", 99); err != nil {
		t.Fatal(err)
	}
}

// update_jot keeps a jot's names apart as Extract keeps an archive's: no file where a directory is, and
// no second spelling of a name in another Unicode normalization form.
func TestUpdateKeepsNamesApart(t *testing.T) {
	e := jotstest.New(t, jots.Options{})
	deploy(t, e, alice, "site", jotstest.File{Path: "docs/index.html", Body: "d"}, jotstest.File{Path: "caf\u00e9.html", Body: "c"})
	for _, tc := range []struct{ path, want string }{
		{"docs", "both a file and a directory"},
		{"caf\u00e9.html/x", "both a file and a directory"},
		{"cafe\u0301.html", "normalization"},
	} {
		_, err := e.Service.Update(e.Ctx, alice, "site", []jots.FileInput{{Path: tc.path, Body: []byte("x")}}, jots.SettingsInput{}, md)
		wantCode(t, err, domain.CodeInvalid, tc.want)
	}
	if _, err := e.Service.Update(e.Ctx, alice, "site", []jots.FileInput{{Path: "docs/more.html", Body: []byte("x")}}, jots.SettingsInput{}, md); err != nil {
		t.Fatal(err)
	}
}
