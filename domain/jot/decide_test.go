package jot_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/jot"
)

var (
	t0    = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	alice = uuid.MustParse("00000000-0000-0000-0000-00000000000a")
	bob   = uuid.MustParse("00000000-0000-0000-0000-00000000000b")
)

func uploadID(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func file(path, body string) jot.File {
	return jot.File{Path: path, Size: int64(len(body)), SHA256: uploadID(body), ContentType: "text/plain; charset=utf-8"}
}

func ptr[T any](v T) *T { return &v }

// fold applies events in order to the initial state.
func fold(events ...domain.Event) jot.State {
	s := jot.Initial()
	for _, ev := range events {
		s = jot.Evolve(s, ev)
	}
	return s
}

func authorized(user uuid.UUID, token string, gen int64, settings jot.Settings) jot.UploadAuthorized {
	return jot.UploadAuthorized{Name: "site", Creator: user, UploadID: uploadID(token), BaseGeneration: gen,
		Settings: settings, ExpiresAt: t0.Add(5 * time.Minute), AuthorizedAt: t0}
}

var public = jot.Settings{Access: jot.AccessPublic}

func deployed(gen int64, files ...jot.File) jot.Deployed {
	return jot.Deployed{Name: "site", Creator: alice, UploadID: uploadID("t"), Generation: gen, Files: files, Settings: public, DeployedAt: t0}
}

func TestDecide(t *testing.T) {
	live := []domain.Event{authorized(alice, "t", 0, public), deployed(1, file("index.html", "hi"))}
	cases := []struct {
		name    string
		past    []domain.Event
		cmd     jot.Command
		code    domain.Code // "" means accepted
		message string      // a fragment of the refusal
		check   func(t *testing.T, events []domain.Event)
	}{
		{
			name: "the first deploy_jot claims the name with public settings",
			cmd:  jot.AuthorizeUpload{Name: "site", User: alice, UploadID: uploadID("t"), TTL: 5 * time.Minute, At: t0},
			check: func(t *testing.T, evs []domain.Event) {
				e := evs[0].(jot.UploadAuthorized)
				if e.Creator != alice || e.Settings != public || !e.ExpiresAt.Equal(t0.Add(5*time.Minute)) || e.BaseGeneration != 0 {
					t.Errorf("got %+v", e)
				}
			},
		},
		{
			name: "a password makes the jot gated",
			cmd:  jot.AuthorizeUpload{Name: "site", User: alice, UploadID: uploadID("t"), TTL: time.Minute, At: t0, Patch: jot.SettingsPatch{PasswordHash: ptr("h")}},
			check: func(t *testing.T, evs []domain.Event) {
				if s := evs[0].(jot.UploadAuthorized).Settings; s != (jot.Settings{Access: jot.AccessPassword, PasswordHash: "h"}) {
					t.Errorf("settings %+v", s)
				}
			},
		},
		{name: "a bad name is refused", cmd: jot.AuthorizeUpload{Name: "My Site", User: alice, UploadID: uploadID("t"), TTL: time.Minute, At: t0}, code: domain.CodeInvalid, message: "lowercase letters"},
		{name: "a name ending in a hyphen is refused", cmd: jot.AuthorizeUpload{Name: "site-", User: alice, UploadID: uploadID("t"), TTL: time.Minute, At: t0}, code: domain.CodeInvalid, message: "hyphen"},
		{name: "another user cannot take the name", past: live, cmd: jot.AuthorizeUpload{Name: "site", User: bob, UploadID: uploadID("b"), TTL: time.Minute, At: t0}, code: domain.CodeForbidden, message: "belongs to another user"},
		{name: "another user cannot take a claimed but never deployed name", past: live[:1], cmd: jot.AuthorizeUpload{Name: "site", User: bob, UploadID: uploadID("b"), TTL: time.Minute, At: t0}, code: domain.CodeForbidden, message: "belongs to another user"},
		{name: "cors on a password jot is refused", cmd: jot.AuthorizeUpload{Name: "site", User: alice, UploadID: uploadID("t"), TTL: time.Minute, At: t0, Patch: jot.SettingsPatch{PasswordHash: ptr("h"), CORS: ptr(true)}}, code: domain.CodeInvalid, message: "only on public jots"},
		{name: "public access with a password is refused", cmd: jot.AuthorizeUpload{Name: "site", User: alice, UploadID: uploadID("t"), TTL: time.Minute, At: t0, Patch: jot.SettingsPatch{Access: ptr(jot.AccessPublic), PasswordHash: ptr("h")}}, code: domain.CodeInvalid, message: "takes no password"},
		{name: "password access without a password is refused", cmd: jot.AuthorizeUpload{Name: "site", User: alice, UploadID: uploadID("t"), TTL: time.Minute, At: t0, Patch: jot.SettingsPatch{Access: ptr(jot.AccessPassword)}}, code: domain.CodeInvalid, message: "needs a password"},
		{name: "an unknown access is refused", cmd: jot.AuthorizeUpload{Name: "site", User: alice, UploadID: uploadID("t"), TTL: time.Minute, At: t0, Patch: jot.SettingsPatch{Access: ptr(jot.Access("friends"))}}, code: domain.CodeInvalid, message: "friends"},
		{
			name: "an upload deploys its manifest with its settings",
			past: []domain.Event{authorized(alice, "t", 0, jot.Settings{Access: jot.AccessPublic, CORS: true})},
			cmd:  jot.Deploy{Name: "site", UploadID: uploadID("t"), Files: []jot.File{file("a.txt", "a"), file("index.html", "i")}, At: t0.Add(time.Minute)},
			check: func(t *testing.T, evs []domain.Event) {
				e := evs[0].(jot.Deployed)
				if e.Generation != 1 || !e.Settings.CORS || len(e.Files) != 2 || e.Creator != alice {
					t.Errorf("got %+v", e)
				}
			},
		},
		{name: "an upload is single use", past: live, cmd: jot.Deploy{Name: "site", UploadID: uploadID("t"), Files: []jot.File{file("a", "a")}, At: t0}, code: domain.CodeNotFound, message: "already been used"},
		{name: "an unknown upload is refused", past: live[:1], cmd: jot.Deploy{Name: "site", UploadID: uploadID("other"), Files: []jot.File{file("a", "a")}, At: t0}, code: domain.CodeNotFound, message: "not valid"},
		{name: "an expired upload is refused", past: live[:1], cmd: jot.Deploy{Name: "site", UploadID: uploadID("t"), Files: []jot.File{file("a", "a")}, At: t0.Add(5 * time.Minute)}, code: domain.CodeForbidden, message: "expired"},
		{
			name: "an upload authorized before another deploy landed is stale",
			past: []domain.Event{authorized(alice, "t", 0, public), authorized(alice, "u", 0, public), deployed(1, file("a", "a"))},
			cmd:  jot.Deploy{Name: "site", UploadID: uploadID("u"), Files: []jot.File{file("a", "a")}, At: t0}, code: domain.CodeConflict, message: "another deploy",
		},
		{name: "an empty archive is refused", past: live[:1], cmd: jot.Deploy{Name: "site", UploadID: uploadID("t"), At: t0}, code: domain.CodeInvalid, message: "no files"},
		{name: "too many files are refused", past: live[:1], cmd: jot.Deploy{Name: "site", UploadID: uploadID("t"), Files: []jot.File{file("a", "a"), file("b", "b")}, MaxFiles: 1, At: t0}, code: domain.CodeInvalid, message: "limit is 1"},
		{name: "too many bytes are refused", past: live[:1], cmd: jot.Deploy{Name: "site", UploadID: uploadID("t"), Files: []jot.File{file("a", "aaaa")}, MaxBytes: 3, At: t0}, code: domain.CodeInvalid, message: "limit is 3"},
		{name: "an unsorted manifest is refused", past: live[:1], cmd: jot.Deploy{Name: "site", UploadID: uploadID("t"), Files: []jot.File{file("b", "b"), file("a", "a")}, At: t0}, code: domain.CodeInvalid, message: "sorted"},
		{name: "a traversing path is refused", past: live[:1], cmd: jot.Deploy{Name: "site", UploadID: uploadID("t"), Files: []jot.File{file("../x", "b")}, At: t0}, code: domain.CodeInvalid, message: "traversal"},
		{
			name: "update puts a file and keeps the rest",
			past: live,
			cmd:  jot.Update{Name: "site", User: alice, Put: []jot.File{file("data.json", "{}")}, At: t0},
			check: func(t *testing.T, evs []domain.Event) {
				e := evs[0].(jot.Updated)
				if len(e.Files) != 2 || e.Files[0].Path != "data.json" || e.Files[1].Path != "index.html" || e.Changed[0] != "data.json" {
					t.Errorf("got %+v", e)
				}
			},
		},
		{
			name: "update changes access with no upload",
			past: live,
			cmd:  jot.Update{Name: "site", User: alice, Patch: jot.SettingsPatch{PasswordHash: ptr("h")}, At: t0},
			check: func(t *testing.T, evs []domain.Event) {
				e := evs[0].(jot.AccessChanged)
				if e.Settings.Access != jot.AccessPassword || len(e.Files) != 1 {
					t.Errorf("got %+v", e)
				}
			},
		},
		{name: "update with nothing to do is refused", past: live, cmd: jot.Update{Name: "site", User: alice, At: t0}, code: domain.CodeInvalid, message: "needs a file"},
		{name: "update by another user is refused", past: live, cmd: jot.Update{Name: "site", User: bob, Put: []jot.File{file("a", "a")}, At: t0}, code: domain.CodeForbidden, message: "another user"},
		{name: "update of an undeployed jot is refused", past: live[:1], cmd: jot.Update{Name: "site", User: alice, Put: []jot.File{file("a", "a")}, At: t0}, code: domain.CodeConflict, message: "not been deployed"},
		{name: "update of an unknown jot is refused", cmd: jot.Update{Name: "site", User: alice, Put: []jot.File{file("a", "a")}, At: t0}, code: domain.CodeNotFound, message: "no jot named"},
		{name: "update beyond the byte limit is refused", past: live, cmd: jot.Update{Name: "site", User: alice, Put: []jot.File{file("a", "aaa")}, MaxBytes: 4, At: t0}, code: domain.CodeInvalid, message: "limit is 4"},
		{name: "delete by another user is refused", past: live, cmd: jot.Delete{Name: "site", User: bob, At: t0}, code: domain.CodeForbidden, message: "another user"},
		{
			name: "delete by its creator carries the manifest",
			past: live,
			cmd:  jot.Delete{Name: "site", User: alice, At: t0},
			check: func(t *testing.T, evs []domain.Event) {
				if e := evs[0].(jot.Deleted); len(e.Files) != 1 || e.Creator != alice {
					t.Errorf("got %+v", e)
				}
			},
		},
		{name: "a deleted name is free for another user", past: append(live[:2:2], jot.Deleted{Name: "site", Creator: alice, DeletedAt: t0}), cmd: jot.AuthorizeUpload{Name: "site", User: bob, UploadID: uploadID("b"), TTL: time.Minute, At: t0}},
		{name: "an unused claim holds the name until its upload expires", past: live[:1], cmd: jot.AuthorizeUpload{Name: "site", User: bob, UploadID: uploadID("b"), TTL: time.Minute, At: t0.Add(5*time.Minute - time.Nanosecond)}, code: domain.CodeForbidden, message: "belongs to another user"},
		{
			name: "an unused claim lapses with its upload and another user may take the name",
			past: live[:1],
			cmd:  jot.AuthorizeUpload{Name: "site", User: bob, UploadID: uploadID("b"), TTL: time.Minute, At: t0.Add(5 * time.Minute)},
			check: func(t *testing.T, evs []domain.Event) {
				if e := evs[0].(jot.UploadAuthorized); e.Creator != bob || e.Settings != public {
					t.Errorf("got %+v", e)
				}
			},
		},
		{
			name: "a lapsed claim's creator may claim it again",
			past: live[:1],
			cmd:  jot.AuthorizeUpload{Name: "site", User: alice, UploadID: uploadID("u"), TTL: time.Minute, At: t0.Add(time.Hour)},
		},
		{name: "a lapsed claim cannot be deleted", past: live[:1], cmd: jot.Delete{Name: "site", User: alice, At: t0.Add(5 * time.Minute)}, code: domain.CodeNotFound, message: "no jot named"},
		{name: "a live jot stays held when its uploads expire", past: live, cmd: jot.AuthorizeUpload{Name: "site", User: bob, UploadID: uploadID("b"), TTL: time.Minute, At: t0.Add(time.Hour)}, code: domain.CodeForbidden, message: "belongs to another user"},
		{
			name: "after a takeover the old claimant's upload is gone",
			past: []domain.Event{authorized(alice, "t", 0, public), jot.UploadAuthorized{Name: "site", Creator: bob, UploadID: uploadID("b"), Settings: public, AuthorizedAt: t0.Add(5 * time.Minute), ExpiresAt: t0.Add(10 * time.Minute)}},
			cmd:  jot.Deploy{Name: "site", UploadID: uploadID("t"), Files: []jot.File{file("a", "a")}, At: t0.Add(6 * time.Minute)}, code: domain.CodeNotFound, message: "not valid",
		},
		{name: "a command without a time is refused", cmd: jot.Delete{Name: "site", User: alice}, code: domain.CodeInvalid, message: "no time"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			events, err := jot.Decide(fold(tc.past...), tc.cmd)
			if tc.code != "" {
				if err == nil {
					t.Fatalf("accepted with %+v; want %s", events, tc.code)
				}
				if got := domain.ErrorCode(err); got != tc.code || !strings.Contains(domain.ErrorMessage(err), tc.message) {
					t.Fatalf("got %s %q; want %s containing %q", got, domain.ErrorMessage(err), tc.code, tc.message)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if len(events) == 0 {
				t.Fatal("no events")
			}
			if tc.check != nil {
				tc.check(t, events)
			}
		})
	}
}

func TestEvolveDropsStaleUploads(t *testing.T) {
	s := fold(authorized(alice, "t", 0, public), authorized(alice, "u", 0, public), deployed(1, file("a", "a")))
	if _, ok := s.Uploads[uploadID("t")]; ok {
		t.Fatal("the used upload is still pending")
	}
	if _, err := jot.Decide(s, jot.Deploy{Name: "site", UploadID: uploadID("u"), Files: []jot.File{file("a", "a")}, At: t0}); domain.ErrorCode(err) != domain.CodeConflict {
		t.Fatalf("the upload that lost the race: %v", err)
	}
	later := authorized(alice, "v", 1, public)
	later.AuthorizedAt, later.ExpiresAt = t0.Add(time.Hour), t0.Add(time.Hour+time.Minute)
	expired := authorized(alice, "w", 1, public)
	s = fold(authorized(alice, "t", 0, public), deployed(1, file("a", "a")), expired, later)
	if _, ok := s.Uploads[uploadID("w")]; ok {
		t.Error("an expired upload is still pending")
	}
	if _, ok := s.Uploads[uploadID("v")]; !ok {
		t.Error("the live upload is missing")
	}
	s = jot.Evolve(s, jot.Deleted{Name: "site", Creator: alice})
	if s.Creator != uuid.Nil || s.Live || s.Generation != 2 || len(s.Uploads) != 0 {
		t.Errorf("after delete: %+v", s)
	}
}

func TestValidatePath(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"index.html", ""}, {"a/b/c.js", ""}, {"ünïcode.txt", ""},
		{"", "empty"}, {"/etc/passwd", "absolute"}, {"../x", "traversal"}, {"a/../../x", "traversal"},
		{`a\b`, "backslash"}, {"a//b", "empty"}, {"./a", `"."`}, {"a\x00b", "control"}, {strings.Repeat("a", 513), "512"},
	} {
		err := jot.ValidatePath(tc.path)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.path, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: got %v, want an error containing %q", tc.path, err, tc.want)
		}
	}
}
