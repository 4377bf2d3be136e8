package jots_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/workbench/workbench/app/jots"
	"github.com/workbench/workbench/app/jots/jotstest"
	"github.com/workbench/workbench/domain/jot"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
)

type sweepStore interface {
	jots.BlobStore
	jots.Sweeper
}

// One sweep suite for every blob store. age makes a blob look stored d ago.
func testSweep(t *testing.T, b sweepStore, age func(t *testing.T, sum string, d time.Duration)) {
	ctx := context.Background()
	bodies := map[string][]byte{"a": []byte("live"), "b": []byte("touched again"), "c": []byte("garbage"), "d": []byte("more garbage"), "e": []byte("fresh")}
	sums := map[string]string{}
	for k, body := range bodies {
		sums[k] = jots.SumOf(body)
		if k == "e" {
			continue
		}
		if err := b.Put(ctx, sums[k], body); err != nil {
			t.Fatal(err)
		}
		age(t, sums[k], 2*time.Hour)
	}
	// b is stored again (a deploy references it anew); e is stored for the first time.
	for _, k := range []string{"b", "e"} {
		if err := b.Put(ctx, sums[k], bodies[k]); err != nil {
			t.Fatal(err)
		}
	}
	live := func(sum string) bool { return sum == sums["a"] }
	if found, err := b.HasGarbage(ctx, live, time.Hour); err != nil || !found {
		t.Fatalf("has garbage before the sweep: %v %v", found, err)
	}
	got, err := b.Sweep(ctx, live, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if want := (jots.Swept{Blobs: 2, Bytes: int64(len(bodies["c"]) + len(bodies["d"]))}); got != want {
		t.Errorf("swept %+v, want %+v", got, want)
	}
	if found, err := b.HasGarbage(ctx, live, time.Hour); err != nil || found {
		t.Errorf("has garbage after the sweep: %v %v", found, err)
	}
	for k, gone := range map[string]bool{"a": false, "b": false, "c": true, "d": true, "e": false} {
		body, err := b.Get(ctx, sums[k])
		switch {
		case gone && !errors.Is(err, jots.ErrBlobNotFound):
			t.Errorf("%s: %q %v, want it collected", k, body, err)
		case !gone && (err != nil || !bytes.Equal(body, bodies[k])):
			t.Errorf("%s: %q %v, want it kept", k, body, err)
		}
	}
	// A collected body can be stored again.
	if err := b.Put(ctx, sums["c"], bodies["c"]); err != nil {
		t.Fatal(err)
	}
	if body, err := b.Get(ctx, sums["c"]); err != nil || !bytes.Equal(body, bodies["c"]) {
		t.Fatalf("stored again: %q %v", body, err)
	}

	// A Put racing a sweep of the same old, unreferenced blob: whenever the Put succeeds, the blob
	// is there afterwards.
	for i := range 30 {
		body := []byte("raced " + string(rune('a'+i)))
		sum := jots.SumOf(body)
		if err := b.Put(ctx, sum, body); err != nil {
			t.Fatal(err)
		}
		age(t, sum, 2*time.Hour)
		var wg sync.WaitGroup
		var putErr, sweepErr error
		wg.Add(2)
		go func() { defer wg.Done(); putErr = b.Put(ctx, sum, body) }()
		go func() { defer wg.Done(); _, sweepErr = b.Sweep(ctx, func(string) bool { return false }, time.Hour) }()
		wg.Wait()
		if putErr != nil || sweepErr != nil {
			t.Fatalf("round %d: put %v, sweep %v", i, putErr, sweepErr)
		}
		if got, err := b.Get(ctx, sum); err != nil || !bytes.Equal(got, body) {
			t.Fatalf("round %d: the blob a Put just stored is gone: %v", i, err)
		}
	}
}

func TestFSBlobsSweep(t *testing.T) {
	dir := t.TempDir()
	b := jots.FSBlobs{Dir: dir}
	path := func(sum string) string { return filepath.Join(dir, sum[:2], sum) }
	setAge := func(t *testing.T, p string, d time.Duration) {
		at := time.Now().Add(-d)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	testSweep(t, b, func(t *testing.T, sum string, d time.Duration) { setAge(t, path(sum), d) })

	// What a crash leaves: an old temporary file is removed; a blob a crashed sweep moved aside is
	// put back when it was touched since, removed when not.
	ctx := context.Background()
	fresh, stale := []byte("moved aside, touched"), []byte("moved aside, old")
	for _, body := range [][]byte{fresh, stale} {
		sum := jots.SumOf(body)
		if err := b.Put(ctx, sum, body); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path(sum), filepath.Join(dir, sum[:2], ".gc-"+sum)); err != nil {
			t.Fatal(err)
		}
	}
	setAge(t, filepath.Join(dir, jots.SumOf(stale)[:2], ".gc-"+jots.SumOf(stale)), 2*time.Hour)
	tmp := filepath.Join(dir, jots.SumOf(fresh)[:2], ".tmp-crashed")
	if err := os.WriteFile(tmp, []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	setAge(t, tmp, 2*time.Hour)
	if _, err := b.Sweep(ctx, func(string) bool { return true }, time.Hour); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Get(ctx, jots.SumOf(fresh)); err != nil || !bytes.Equal(got, fresh) {
		t.Errorf("a touched blob moved aside was not put back: %v", err)
	}
	if _, err := b.Get(ctx, jots.SumOf(stale)); !errors.Is(err, jots.ErrBlobNotFound) {
		t.Errorf("an old blob moved aside: %v", err)
	}
	for _, p := range []string{tmp, filepath.Join(dir, jots.SumOf(stale)[:2], ".gc-"+jots.SumOf(stale))} {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s left behind: %v", p, err)
		}
	}
}

func TestPostgresBlobsSweep(t *testing.T) {
	url := testenv.PostgresURL(t)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := migrations.Apply(context.Background(), db, migrations.Postgres, nil); err != nil {
		t.Fatal(err)
	}
	testSweep(t, jots.PostgresBlobs{DB: db}, func(t *testing.T, sum string, d time.Duration) {
		if _, err := db.Exec(`UPDATE jot_blobs SET touched_at = now() - make_interval(secs => $1) WHERE sha256 = $2`, d.Seconds(), sum); err != nil {
			t.Fatal(err)
		}
	})
}

// ageBlobs makes every blob of an Env look stored d ago.
func ageBlobs(t *testing.T, e *jotstest.Env, d time.Duration) {
	t.Helper()
	at := time.Now().Add(-d)
	err := filepath.WalkDir(e.BlobDir, func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		return os.Chtimes(p, at, at)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A redeploy, an update or a delete leaves blobs no live jot references; a sweep frees exactly those,
// counting references from the read model (a body two jots share lives while either does).
func TestCollectGarbage(t *testing.T) {
	e := jotstest.New(t, jots.Options{BlobGrace: time.Hour})
	deploy(t, e, alice, "site", jotstest.File{Path: "index.html", Body: "shared"}, jotstest.File{Path: "old.txt", Body: "replaced"})
	deploy(t, e, bob, "other", jotstest.File{Path: "index.html", Body: "shared"})
	deploy(t, e, alice, "site", jotstest.File{Path: "index.html", Body: "shared"}, jotstest.File{Path: "new.txt", Body: "new"})
	if n := countBlobs(t, e.BlobDir); n != 3 {
		t.Fatalf("%d blobs before the sweep", n)
	}
	// Nothing is old enough yet.
	if got, err := e.Service.CollectGarbage(e.Ctx); err != nil || got.Blobs != 0 {
		t.Fatalf("a sweep within the grace period: %+v %v", got, err)
	}
	ageBlobs(t, e, 2*time.Hour)
	got, err := e.Service.CollectGarbage(e.Ctx)
	if err != nil || got != (jots.Swept{Blobs: 1, Bytes: int64(len("replaced"))}) {
		t.Fatalf("after the redeploy: %+v %v", got, err)
	}
	if s := served(t, e, "site"); s["index.html"] != "shared" || s["new.txt"] != "new" {
		t.Fatalf("served %v", s)
	}
	if err := e.Service.Delete(e.Ctx, alice, "site", md); err != nil {
		t.Fatal(err)
	}
	ageBlobs(t, e, 2*time.Hour)
	if got, err := e.Service.CollectGarbage(e.Ctx); err != nil || got.Blobs != 1 {
		t.Fatalf("after the delete: %+v %v", got, err)
	}
	if s := served(t, e, "other"); s["index.html"] != "shared" {
		t.Fatalf("the shared body went with the deleted jot: %v", s)
	}
	// The two sweeps that found garbage marked the log; the first, which found none, did not.
	marks, err := e.Store.Load(e.Ctx, jot.SweepStream, 1)
	if err != nil || len(marks) != 2 || marks[0].Type != jot.TypeSweepStarted {
		t.Fatalf("sweep markers: %d %v", len(marks), err)
	}
}

// The collector sweeps at start and after a delete, without being asked.
func TestRunCollector(t *testing.T) {
	e := jotstest.New(t, jots.Options{BlobGrace: time.Hour})
	deploy(t, e, alice, "gone", jotstest.File{Path: "index.html", Body: "deleted before the start"})
	if err := e.Service.Delete(e.Ctx, alice, "gone", md); err != nil {
		t.Fatal(err)
	}
	deploy(t, e, alice, "next", jotstest.File{Path: "index.html", Body: "deleted while running"})
	ageBlobs(t, e, 2*time.Hour)
	ctx, cancel := context.WithCancel(e.Ctx)
	done := make(chan error, 1)
	go func() { done <- e.Service.RunCollector(ctx) }()
	defer func() { cancel(); <-done }()
	waitBlobs := func(want int) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for countBlobs(t, e.BlobDir) != want {
			if time.Now().After(deadline) {
				t.Fatalf("%d blobs, want %d", countBlobs(t, e.BlobDir), want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitBlobs(1) // the sweep at start
	if err := e.Service.Delete(e.Ctx, alice, "next", md); err != nil {
		t.Fatal(err)
	}
	waitBlobs(0)
}
