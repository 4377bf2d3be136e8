package jots_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/jots"
	"github.com/workbench/workbench/app/jots/jotstest"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/jot"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/projections/jotsrm"
)

var (
	alice = uuid.New()
	bob   = uuid.New()
	md    = eventstore.Metadata{Actor: "test"}
)

func token(t *testing.T, tk jots.Ticket) string {
	t.Helper()
	if !strings.HasPrefix(tk.UploadURL, "http://workbench.test/jots/upload/"+tk.Name+"/") {
		t.Fatalf("upload URL %q", tk.UploadURL)
	}
	return path.Base(tk.UploadURL)
}

func deploy(t *testing.T, e *jotstest.Env, user uuid.UUID, name string, files ...jotstest.File) jots.Deployment {
	t.Helper()
	tk, err := e.Service.Deploy(e.Ctx, user, name, jots.SettingsInput{}, md)
	if err != nil {
		t.Fatalf("deploy_jot: %v", err)
	}
	d, err := e.Service.Upload(e.Ctx, name, token(t, tk), bytes.NewReader(jotstest.Archive(t, files...)), md)
	if err != nil {
		t.Fatalf("upload: %v", err)
	}
	return d
}

func wantCode(t *testing.T, err error, code domain.Code, fragment string) {
	t.Helper()
	if err == nil {
		t.Fatalf("succeeded; want %s containing %q", code, fragment)
	}
	if domain.ErrorCode(err) != code || !strings.Contains(domain.ErrorMessage(err), fragment) {
		t.Fatalf("got %s %q; want %s containing %q", domain.ErrorCode(err), domain.ErrorMessage(err), code, fragment)
	}
}

func served(t *testing.T, e *jotstest.Env, name string) map[string]string {
	t.Helper()
	files, err := e.Reader.Files(e.Ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range files {
		body, err := e.Service.Body(e.Ctx, f)
		if err != nil {
			t.Fatalf("body of %s: %v", f.Path, err)
		}
		out[f.Path] = string(body)
	}
	return out
}

func TestDeployUploadServeList(t *testing.T) {
	e := jotstest.New(t, jots.Options{JotsOrigin: "https://jots.test"})
	tk, err := e.Service.Deploy(e.Ctx, alice, "report", jots.SettingsInput{}, md)
	if err != nil {
		t.Fatal(err)
	}
	if tk.URL != "https://jots.test/j/report/" || time.Until(tk.ExpiresAt) > 5*time.Minute || time.Until(tk.ExpiresAt) < 4*time.Minute {
		t.Errorf("ticket %+v", tk)
	}
	d, err := e.Service.Upload(e.Ctx, "report", token(t, tk), bytes.NewReader(jotstest.Archive(t,
		jotstest.File{Path: "index.html", Body: "<h1>report</h1>"}, jotstest.File{Path: "css/site.css", Body: "h1{}"})), md)
	if err != nil {
		t.Fatal(err)
	}
	if d.Generation != 1 || len(d.Files) != 2 || d.Warning != "" || d.TotalBytes != 19 {
		t.Errorf("deployment %+v", d)
	}
	// Served as soon as Upload returns: it waited for the read model.
	if got := served(t, e, "report"); got["index.html"] != "<h1>report</h1>" || got["css/site.css"] != "h1{}" {
		t.Errorf("served %v", got)
	}
	f, err := e.Service.File(e.Ctx, "report", "css/site.css")
	if err != nil || f.ContentType != "text/css; charset=utf-8" || f.SHA256 != jots.SumOf([]byte("h1{}")) {
		t.Errorf("file %+v %v", f, err)
	}
	l, err := e.Service.ListFiles(e.Ctx, alice, "report")
	if err != nil || len(l.Files) != 2 || l.Files[0].Path != "css/site.css" || l.Access != jot.AccessPublic {
		t.Errorf("listing %+v %v", l, err)
	}
	_, err = e.Service.ListFiles(e.Ctx, bob, "report")
	wantCode(t, err, domain.CodeForbidden, "belongs to another user")
}

func TestNamesAreLockedToTheirCreator(t *testing.T) {
	e := jotstest.New(t, jots.Options{})
	deploy(t, e, alice, "taken", jotstest.File{Path: "index.html", Body: "alice"})
	_, err := e.Service.Deploy(e.Ctx, bob, "taken", jots.SettingsInput{}, md)
	wantCode(t, err, domain.CodeForbidden, `the jot name "taken" belongs to another user`)
	_, err = e.Service.Update(e.Ctx, bob, "taken", []jots.FileInput{{Path: "index.html", Body: []byte("bob")}}, jots.SettingsInput{}, md)
	wantCode(t, err, domain.CodeForbidden, "belongs to another user")
	wantCode(t, e.Service.Delete(e.Ctx, bob, "taken", md), domain.CodeForbidden, "belongs to another user")
	if got := served(t, e, "taken"); got["index.html"] != "alice" {
		t.Errorf("served %v", got)
	}
	// Its creator deletes it; the name is free.
	if err := e.Service.Delete(e.Ctx, alice, "taken", md); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Reader.Jot(e.Ctx, "taken"); !errors.Is(err, jotsrm.ErrNotFound) {
		t.Errorf("after delete: %v", err)
	}
	deploy(t, e, bob, "taken", jotstest.File{Path: "index.html", Body: "bob"})
	if got := served(t, e, "taken"); got["index.html"] != "bob" {
		t.Errorf("served %v", got)
	}
}

func TestUploadURLs(t *testing.T) {
	clock := testenv.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	advance := clock.Advance
	e := jotstest.New(t, jots.Options{Now: clock.Now, Limits: jots.Limits{UploadTTL: time.Minute}})
	arc := jotstest.Archive(t, jotstest.File{Path: "index.html", Body: "x"})

	tk, err := e.Service.Deploy(e.Ctx, alice, "once", jots.SettingsInput{}, md)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Service.Upload(e.Ctx, "once", token(t, tk), bytes.NewReader(arc), md); err != nil {
		t.Fatal(err)
	}
	t.Run("single use", func(t *testing.T) {
		_, err := e.Service.Upload(e.Ctx, "once", token(t, tk), bytes.NewReader(arc), md)
		wantCode(t, err, domain.CodeNotFound, "already been used")
	})
	t.Run("a forged token", func(t *testing.T) {
		_, err := e.Service.Upload(e.Ctx, "once", "forged", bytes.NewReader(arc), md)
		wantCode(t, err, domain.CodeNotFound, "not valid")
	})
	t.Run("a token for another name", func(t *testing.T) {
		other, err := e.Service.Deploy(e.Ctx, alice, "other", jots.SettingsInput{}, md)
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Service.Upload(e.Ctx, "once", token(t, other), bytes.NewReader(arc), md)
		wantCode(t, err, domain.CodeNotFound, "not valid")
	})
	t.Run("expired", func(t *testing.T) {
		tk, err := e.Service.Deploy(e.Ctx, alice, "once", jots.SettingsInput{}, md)
		if err != nil {
			t.Fatal(err)
		}
		advance(time.Minute)
		_, err = e.Service.Upload(e.Ctx, "once", token(t, tk), bytes.NewReader(arc), md)
		wantCode(t, err, domain.CodeForbidden, "expired")
	})
}

// A refused upload changes nothing: the jot keeps serving what it served, and nothing of the refused
// archive reaches the blob store.
func TestARefusedUploadLeavesTheJotAsItWas(t *testing.T) {
	e := jotstest.New(t, jots.Options{Limits: jots.Limits{MaxBytes: 1000}})
	deploy(t, e, alice, "steady", jotstest.File{Path: "index.html", Body: "v1"})
	blobsBefore := countBlobs(t, e.BlobDir)
	for _, tc := range []struct {
		name    string
		archive []byte
		kind    jots.Refusal
	}{
		{"traversal after a good file", jotstest.Archive(t, jotstest.File{Path: "index.html", Body: "v2"}, jotstest.File{Path: "../evil", Body: "x"}), jots.RefusedTraversal},
		{"over the limit after a good file", jotstest.Archive(t, jotstest.File{Path: "index.html", Body: "v2"}, jotstest.File{Path: "big", Body: strings.Repeat("b", 1001)}), jots.RefusedTooLarge},
		{"not an archive", []byte("hello"), jots.RefusedNotGzip},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tk, err := e.Service.Deploy(e.Ctx, alice, "steady", jots.SettingsInput{}, md)
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.Service.Upload(e.Ctx, "steady", token(t, tk), bytes.NewReader(tc.archive), md)
			if jots.RefusalOf(err) != tc.kind {
				t.Fatalf("got %v, want %s", err, tc.kind)
			}
			if got := served(t, e, "steady"); len(got) != 1 || got["index.html"] != "v1" {
				t.Errorf("served %v", got)
			}
			if n := countBlobs(t, e.BlobDir); n != blobsBefore {
				t.Errorf("%d blobs after a refused upload; %d before", n, blobsBefore)
			}
		})
	}
}

func countBlobs(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	fans, _ := os.ReadDir(dir)
	for _, f := range fans {
		entries, err := os.ReadDir(dir + "/" + f.Name())
		if err != nil {
			t.Fatal(err)
		}
		n += len(entries)
	}
	return n
}

// Two uploads racing for one name: one wins whole, the other is refused, and the jot serves exactly
// the winner's files.
func TestConcurrentDeploysEndWithOneCleanWinner(t *testing.T) {
	e := jotstest.New(t, jots.Options{})
	for round := range 5 {
		name := "race-" + string(rune('a'+round))
		sites := make([][]jotstest.File, 2)
		tokens := make([]string, 2)
		for i := range sites {
			for f := range 20 {
				sites[i] = append(sites[i], jotstest.File{Path: "f" + string(rune('a'+f)) + ".txt", Body: name + " site " + string(rune('0'+i))})
			}
			tk, err := e.Service.Deploy(e.Ctx, alice, name, jots.SettingsInput{}, md)
			if err != nil {
				t.Fatal(err)
			}
			tokens[i] = token(t, tk)
		}
		errs := make([]error, 2)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, errs[i] = e.Service.Upload(e.Ctx, name, tokens[i], bytes.NewReader(jotstest.Archive(t, sites[i]...)), md)
			}()
		}
		close(start)
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner == -1:
				winner = i
			case err == nil:
				t.Fatalf("round %d: both uploads succeeded", round)
			default:
				wantCode(t, err, domain.CodeConflict, "another deploy")
			}
		}
		if winner == -1 {
			t.Fatalf("round %d: no upload won: %v", round, errs)
		}
		got := served(t, e, name)
		if len(got) != 20 {
			t.Fatalf("round %d: %d files served", round, len(got))
		}
		for p, body := range got {
			if want := name + " site " + string(rune('0'+winner)); body != want {
				t.Fatalf("round %d: %s is %q, want the winner's %q", round, p, body, want)
			}
		}
	}
}

func TestUpdateJot(t *testing.T) {
	e := jotstest.New(t, jots.Options{Limits: jots.Limits{MaxFiles: 3}})
	deploy(t, e, alice, "dash", jotstest.File{Path: "index.html", Body: "page"}, jotstest.File{Path: "data.json", Body: `{"v":1}`})

	l, err := e.Service.Update(e.Ctx, alice, "dash", []jots.FileInput{{Path: "data.json", Body: []byte(`{"v":2}`)}}, jots.SettingsInput{}, md)
	if err != nil || len(l.Files) != 2 {
		t.Fatalf("update: %+v %v", l, err)
	}
	if got := served(t, e, "dash"); got["data.json"] != `{"v":2}` || got["index.html"] != "page" {
		t.Errorf("served %v", got)
	}
	yes, pw, password := true, "hunter22", "password"
	_, err = e.Service.Update(e.Ctx, alice, "dash", nil, jots.SettingsInput{Access: &password, Password: &pw, CORS: &yes}, md)
	wantCode(t, err, domain.CodeInvalid, "only on public jots")
	if _, err := e.Service.Update(e.Ctx, alice, "dash", nil, jots.SettingsInput{Password: &pw}, md); err != nil {
		t.Fatal(err)
	}
	site, err := e.Service.Site(e.Ctx, "dash")
	if err != nil || site.Settings.Access != jot.AccessPassword || !jots.CheckPassword(site.Settings.PasswordHash, pw) || jots.CheckPassword(site.Settings.PasswordHash, "wrong") {
		t.Fatalf("site %+v %v", site, err)
	}
	if strings.Contains(site.Settings.PasswordHash, pw) {
		t.Fatal("the password is stored in clear")
	}
	public := "public"
	if _, err := e.Service.Update(e.Ctx, alice, "dash", nil, jots.SettingsInput{Access: &public, CORS: &yes}, md); err != nil {
		t.Fatal(err)
	}
	if site, _ := e.Service.Site(e.Ctx, "dash"); site.Settings != (jot.Settings{Access: jot.AccessPublic, CORS: true}) {
		t.Errorf("settings %+v", site.Settings)
	}
	_, err = e.Service.Update(e.Ctx, alice, "dash", []jots.FileInput{{Path: "a", Body: []byte("a")}, {Path: "b", Body: []byte("b")}}, jots.SettingsInput{}, md)
	wantCode(t, err, domain.CodeInvalid, "limit is 3")
	_, err = e.Service.Update(e.Ctx, alice, "dash", []jots.FileInput{{Path: "../x", Body: []byte("a")}}, jots.SettingsInput{}, md)
	wantCode(t, err, domain.CodeInvalid, "path traversal")
	_, err = e.Service.Update(e.Ctx, alice, "nothing-here", []jots.FileInput{{Path: "a", Body: []byte("a")}}, jots.SettingsInput{}, md)
	wantCode(t, err, domain.CodeNotFound, "no jot named")
}

// Every change is an event carrying the manifest.
func TestEventsCarryTheManifest(t *testing.T) {
	e := jotstest.New(t, jots.Options{})
	deploy(t, e, alice, "logged", jotstest.File{Path: "index.html", Body: "a"})
	if _, err := e.Service.Update(e.Ctx, alice, "logged", []jots.FileInput{{Path: "b.txt", Body: []byte("b")}}, jots.SettingsInput{}, md); err != nil {
		t.Fatal(err)
	}
	yes := true
	if _, err := e.Service.Update(e.Ctx, alice, "logged", nil, jots.SettingsInput{CORS: &yes}, md); err != nil {
		t.Fatal(err)
	}
	if err := e.Service.Delete(e.Ctx, alice, "logged", md); err != nil {
		t.Fatal(err)
	}
	envs, err := e.Store.Load(e.Ctx, jot.StreamName("logged"), 1)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, env := range envs {
		types = append(types, env.Type)
		var body struct {
			Files []jot.File `json:"files"`
		}
		if err := json.Unmarshal(env.Data, &body); err != nil {
			t.Fatal(err)
		}
		if env.Type == jot.TypeUploadAuthorized {
			continue
		}
		if len(body.Files) == 0 || !jot.ValidSHA256(body.Files[0].SHA256) || body.Files[0].Size != 1 {
			t.Errorf("%s carries %+v", env.Type, body.Files)
		}
		if env.Metadata.Actor != "test" {
			t.Errorf("%s actor %q", env.Type, env.Metadata.Actor)
		}
	}
	want := "jot.upload_authorized jot.deployed jot.updated jot.access_changed jot.deleted"
	if strings.Join(types, " ") != want {
		t.Errorf("events %s\nwant %s", strings.Join(types, " "), want)
	}
}
