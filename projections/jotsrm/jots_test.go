package jotsrm_test

import (
	"bytes"
	"errors"
	"path"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/jots"
	"github.com/workbench/workbench/app/jots/jotstest"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/jotsrm"
)

// The read model follows deploys, updates, access changes and deletes, and a rebuild from the log
// gives the same rows.
func TestReadModelAndRebuild(t *testing.T) {
	e := jotstest.New(t, jots.Options{})
	user, md := uuid.New(), eventstore.Metadata{Actor: "test"}
	for _, name := range []string{"kept", "gone"} {
		tk, err := e.Service.Deploy(e.Ctx, user, name, jots.SettingsInput{}, md)
		if err != nil {
			t.Fatal(err)
		}
		arc := jotstest.Archive(t, jotstest.File{Path: "index.html", Body: name}, jotstest.File{Path: "b/c.txt", Body: "c"})
		if _, err := e.Service.Upload(e.Ctx, name, path.Base(tk.UploadURL), bytes.NewReader(arc), md); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Service.Update(e.Ctx, user, "kept", []jots.FileInput{{Path: "a.json", Body: []byte("{}")}}, jots.SettingsInput{}, md); err != nil {
		t.Fatal(err)
	}
	pw := "pw"
	if _, err := e.Service.Update(e.Ctx, user, "kept", nil, jots.SettingsInput{Password: &pw}, md); err != nil {
		t.Fatal(err)
	}
	if err := e.Service.Delete(e.Ctx, user, "gone", md); err != nil {
		t.Fatal(err)
	}
	// A claim never uploaded to counts among the user's names until it expires.
	if _, err := e.Service.Deploy(e.Ctx, user, "claimed", jots.SettingsInput{}, md); err != nil {
		t.Fatal(err)
	}
	held := func(at time.Time) int {
		n, err := e.Reader.Held(e.Ctx, user, at)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	now := time.Now()
	if n := held(now); n != 2 {
		t.Errorf("held: %d names, want kept and claimed", n)
	}
	if n := held(now.Add(jots.DefaultUploadTTL + time.Second)); n != 1 {
		t.Errorf("held once the claim expired: %d names, want kept", n)
	}
	snapshot := func() (jotsrm.Jot, []string) {
		j, err := e.Reader.Jot(e.Ctx, "kept")
		if err != nil {
			t.Fatal(err)
		}
		files, err := e.Reader.Files(e.Ctx, "kept")
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, f := range files {
			paths = append(paths, f.Path)
		}
		return j, paths
	}
	j, paths := snapshot()
	if j.Creator != user || j.Settings.Access != "password" || j.Generation != 1 || j.Version != 4 {
		t.Errorf("jot %+v", j)
	}
	if diff := cmp.Diff([]string{"a.json", "b/c.txt", "index.html"}, paths); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if _, err := e.Reader.Jot(e.Ctx, "gone"); !errors.Is(err, jotsrm.ErrNotFound) {
		t.Errorf("deleted jot: %v", err)
	}
	if names, err := e.Reader.ByCreator(e.Ctx, user); err != nil || len(names) != 1 || names[0] != "kept" {
		t.Errorf("by creator: %v %v", names, err)
	}
	if err := e.Runner.Rebuild(e.Ctx, jotsrm.Name); err != nil {
		t.Fatal(err)
	}
	j2, paths2 := snapshot()
	if diff := cmp.Diff(j, j2); diff != "" {
		t.Errorf("rebuild changed the jot (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(paths, paths2); diff != "" {
		t.Errorf("rebuild changed the files (-before +after):\n%s", diff)
	}
	if n := held(now); n != 2 {
		t.Errorf("held after the rebuild: %d names", n)
	}
}
