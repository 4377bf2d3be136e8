package crashtest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/eventstore"
)

const (
	// childEnv switches the test binary into the appending child; its value names the backend.
	childEnv = "WORKBENCH_CRASHTEST_CHILD"
	// targetEnv names the database the child opens: a file path or a URL, as the backend reads it.
	targetEnv = "WORKBENCH_CRASHTEST_TARGET"

	// ownWriters append with Exact to a stream each; sharedWriters append with Any to sharedStreams
	// streams they share, so that appends to one stream race.
	ownWriters    = 3
	sharedWriters = 3
	sharedStreams = 2

	rounds   = 2                       // kill, reopen and check this many times on one database
	minAcks  = 30                      // acknowledged appends to wait for before the clock starts
	runFor   = 1500 * time.Millisecond // how long the child appends after that, until it is killed
	startMax = time.Minute             // how long the child may take to reach minAcks

	// childLifetime ends a child that nobody killed (its parent died): it never outlives a run.
	childLifetime = 2 * time.Minute
	eventType     = "crashtest.appended"
	actor         = "crashtest"
)

// backend is one durable store under test.
type backend struct {
	name string
	// gapFree: ReadAll positions run 1, 2, 3... with Commit == Prepare (SQLite).
	gapFree bool
	// prepare makes an empty, migrated database for one test and returns its target (path or URL).
	prepare func(t *testing.T) string
	// open opens a store on target; release frees what open took, after the store is closed.
	open func(ctx context.Context, target string) (s eventstore.Store, release func(), err error)
}

func TestMain(m *testing.M) {
	if name := os.Getenv(childEnv); name != "" {
		os.Exit(runChild(name, os.Getenv(targetEnv)))
	}
	os.Exit(m.Run())
}

func backendNamed(name string) (backend, bool) {
	for _, b := range backends() {
		if b.name == name {
			return b, true
		}
	}
	return backend{}, false
}

// TestCrash kills an appending process and checks the log it leaves, for every durable backend.
func TestCrash(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			target := b.prepare(t)
			log := newLedger()
			for round := 1; round <= rounds; round++ {
				runAndKill(t, b, target, round, log)
				if t.Failed() {
					return
				}
				verify(t, b, target, round, log)
				if t.Failed() {
					return
				}
			}
		})
	}
}

// ---- the child ----

// reporter writes whole lines to stdout, one write each, so that lines from several goroutines never
// interleave and a kill can only cut the very last one.
type reporter struct {
	mu sync.Mutex
	w  io.Writer
}

func (r *reporter) line(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.w, format+"\n", args...)
}

// runChild opens the store and appends until it is killed. Protocol, one line each:
//
//	try <stream> <id,id,...>            before an Append is called
//	ack <stream> <id,id,...> <position> after it returned success, never before
//	fail <message>                      an Append failed for a reason other than the kill
func runChild(name, target string) int {
	b, ok := backendNamed(name)
	if !ok {
		fmt.Fprintf(os.Stderr, "crashtest child: unknown backend %q\n", name)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), childLifetime)
	defer cancel()
	s, release, err := b.open(ctx, target)
	if err != nil {
		fmt.Fprintf(os.Stderr, "crashtest child: open %s: %v\n", target, err)
		return 2
	}
	defer release()
	defer s.Close()
	out := &reporter{w: os.Stdout}
	var wg sync.WaitGroup
	for w := 0; w < ownWriters+sharedWriters; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := appendLoop(ctx, s, w, out); err != nil && ctx.Err() == nil {
				out.line("fail %s", strings.ReplaceAll(err.Error(), "\n", " "))
			}
		}()
	}
	wg.Wait()
	fmt.Fprintln(os.Stderr, "crashtest child: ran out its lifetime without being killed")
	return 3
}

// appendLoop appends batches of one to three events until ctx ends or an append fails.
func appendLoop(ctx context.Context, s eventstore.Store, w int, out *reporter) error {
	own := w < ownWriters
	var version int64
	if own {
		// A later round continues the stream the last one left.
		envs, err := s.Load(ctx, ownStream(w), 1)
		if err != nil {
			return fmt.Errorf("writer %d: load: %w", w, err)
		}
		version = int64(len(envs))
	}
	for i := 0; ctx.Err() == nil; i++ {
		stream, expected := ownStream(w), eventstore.Exact(version)
		if !own {
			stream, expected = fmt.Sprintf("shared-%d", (w+i)%sharedStreams), eventstore.Any
		}
		events := make([]eventstore.EventData, 1+(w+i)%3)
		ids := make([]string, len(events))
		for j := range events {
			events[j] = newEvent(w, i)
			ids[j] = events[j].ID.String()
		}
		out.line("try %s %s", stream, strings.Join(ids, ","))
		pos, err := s.Append(ctx, stream, expected, events...)
		if err != nil {
			return fmt.Errorf("writer %d: append %d to %s at %s: %w", w, i, stream, expected, err)
		}
		out.line("ack %s %s %s", stream, strings.Join(ids, ","), pos)
		version += int64(len(events))
	}
	return nil
}

func ownStream(w int) string { return fmt.Sprintf("own-%d", w) }

// body is an event's data: it names the event, so that a torn or misplaced row shows.
type body struct {
	ID     uuid.UUID `json:"id"`
	Writer int       `json:"writer"`
	Seq    int       `json:"seq"`
}

func newEvent(w, i int) eventstore.EventData {
	id := uuid.New()
	data, _ := json.Marshal(body{ID: id, Writer: w, Seq: i})
	return eventstore.EventData{
		ID:            id,
		Type:          eventType,
		SchemaVersion: 1,
		Data:          data,
		Metadata:      eventstore.Metadata{Actor: actor, CorrelationID: id.String(), Time: time.Now().UTC()},
	}
}

// ---- the parent ----

// batch is one Append the child (or the parent) tried.
type batch struct {
	stream string
	ids    []uuid.UUID
	acked  bool
	pos    eventstore.Position // what Append returned, when acked
	round  int
}

// ledger is everything the children said, over all rounds.
type ledger struct {
	batches []*batch
	byFirst map[uuid.UUID]*batch // a batch by its first event id
	tried   map[uuid.UUID]*batch // every tried event id
}

func newLedger() *ledger {
	return &ledger{byFirst: map[uuid.UUID]*batch{}, tried: map[uuid.UUID]*batch{}}
}

func parseIDs(s string) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	for _, f := range strings.Split(s, ",") {
		id, err := uuid.Parse(f)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// record reads one line of the child's protocol into the ledger.
func (l *ledger) record(line string, round int) error {
	f := strings.Fields(line)
	switch {
	case len(f) == 3 && f[0] == "try":
		ids, err := parseIDs(f[2])
		if err != nil {
			return fmt.Errorf("line %q: %w", line, err)
		}
		b := &batch{stream: f[1], ids: ids, round: round}
		for _, id := range ids {
			if _, dup := l.tried[id]; dup {
				return fmt.Errorf("line %q: event id %s tried twice", line, id)
			}
			l.tried[id] = b
		}
		l.batches = append(l.batches, b)
		l.byFirst[ids[0]] = b
	case len(f) == 4 && f[0] == "ack":
		ids, err := parseIDs(f[2])
		if err != nil {
			return fmt.Errorf("line %q: %w", line, err)
		}
		b := l.byFirst[ids[0]]
		if b == nil || b.stream != f[1] || len(b.ids) != len(ids) {
			return fmt.Errorf("line %q acknowledges an append that was never tried", line)
		}
		if b.pos, err = eventstore.ParsePosition(f[3]); err != nil {
			return fmt.Errorf("line %q: %w", line, err)
		}
		b.acked = true
	case len(f) > 0 && f[0] == "fail":
		return fmt.Errorf("child: %s", line)
	default:
		return fmt.Errorf("unexpected line from the child: %q", line)
	}
	return nil
}

// runAndKill starts a child on target, lets it append, kills it with SIGKILL and records every whole
// line it wrote.
func runAndKill(t *testing.T, b backend, target string, round int, log *ledger) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+b.name, targetEnv+"="+target)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start child: %v", err)
	}
	killed := false
	defer func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()

	// Only lines that end in a newline count: the kill may cut the last one short, and a cut "ack"
	// is not an acknowledgement.
	lines := make(chan string, 4096)
	go func() {
		defer close(lines)
		r := bufio.NewReaderSize(stdout, 64<<10)
		for {
			s, err := r.ReadString('\n')
			if err != nil {
				return // EOF, with s the cut remainder if any
			}
			lines <- strings.TrimSuffix(s, "\n")
		}
	}()

	acks, tries := 0, 0
	take := func(line string) {
		if err := log.record(line, round); err != nil {
			t.Error(err)
			return
		}
		switch {
		case strings.HasPrefix(line, "ack "):
			acks++
		case strings.HasPrefix(line, "try "):
			tries++
		}
	}
	start := time.After(startMax)
	for acks < minAcks && !t.Failed() {
		select {
		case line, ok := <-lines:
			if !ok {
				_ = cmd.Wait()
				killed = true
				t.Fatalf("round %d: the child ended before it was killed, after %d acknowledged appends; its stderr:\n%s", round, acks, stderr.String())
			}
			take(line)
		case <-start:
			t.Fatalf("round %d: only %d appends acknowledged in %s", round, acks, startMax)
		}
	}
	stop := time.After(runFor)
appending:
	for !t.Failed() {
		select {
		case line, ok := <-lines:
			if !ok {
				_ = cmd.Wait()
				killed = true
				t.Fatalf("round %d: the child ended before it was killed, after %d acknowledged appends; its stderr:\n%s", round, acks, stderr.String())
			}
			take(line)
		case <-stop:
			break appending
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill child: %v", err)
	}
	for line := range lines { // what the child wrote before it died is still in the pipe
		take(line)
	}
	err = cmd.Wait()
	killed = true
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("round %d: child exit = %v; want death by SIGKILL", round, err)
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("round %d: child ended with %v, not by our SIGKILL; its stderr:\n%s", round, err, stderr.String())
	}
	t.Logf("round %d: child killed after %d acknowledged appends of %d tried", round, acks, tries)
}

// verify reopens the store and checks the log against the ledger.
func verify(t *testing.T, b backend, target string, round int, log *ledger) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, release, err := b.open(ctx, target)
	if err != nil {
		t.Fatalf("round %d: reopen after the kill: %v", round, err)
	}
	defer release()
	defer s.Close()

	// The whole log in global order.
	var all []eventstore.Envelope
	for from := eventstore.Start; ; {
		page, err := s.ReadAll(ctx, from, 500)
		if err != nil {
			t.Fatalf("ReadAll(%s): %v", from, err)
		}
		all = append(all, page...)
		if len(page) < 500 {
			break
		}
		from = page[len(page)-1].Position
	}

	stored := map[uuid.UUID]eventstore.Envelope{}
	versions := map[string]int64{}
	for i, env := range all {
		if _, dup := stored[env.ID]; dup {
			t.Errorf("event %s appears twice in ReadAll", env.ID)
		}
		stored[env.ID] = env
		if i > 0 && !all[i-1].Position.Less(env.Position) {
			t.Errorf("ReadAll event %d at %s is not after event %d at %s", i, env.Position, i-1, all[i-1].Position)
		}
		if want := (eventstore.Position{Commit: uint64(i + 1), Prepare: uint64(i + 1)}); b.gapFree && env.Position != want {
			t.Errorf("ReadAll event %d is at %s; want %s (gap-free positions)", i, env.Position, want)
		}
		if env.Version != versions[env.Stream]+1 {
			t.Errorf("stream %q: version %d follows %d", env.Stream, env.Version, versions[env.Stream])
		}
		versions[env.Stream] = env.Version
		checkIntact(t, env, log)
	}

	// Every append is all there or not there at all; every acknowledged one is there, in order, and
	// its last event is where Append said.
	inFlight, committed := 0, 0
	for _, bt := range log.batches {
		present := 0
		for _, id := range bt.ids {
			if _, ok := stored[id]; ok {
				present++
			}
		}
		switch {
		case present != 0 && present != len(bt.ids):
			t.Errorf("append of %d events to %q (round %d) is half-written: %d stored", len(bt.ids), bt.stream, bt.round, present)
			continue
		case bt.acked && present == 0:
			t.Errorf("acknowledged append of %d events to %q (round %d, returned %s) is lost", len(bt.ids), bt.stream, bt.round, bt.pos)
			continue
		case !bt.acked && bt.round == round:
			inFlight++
			if present > 0 {
				committed++
			}
		}
		if present == 0 {
			continue
		}
		first := stored[bt.ids[0]].Version
		for j, id := range bt.ids {
			if v := stored[id].Version; v != first+int64(j) {
				t.Errorf("append to %q: event %d is at version %d, want %d (one append, consecutive versions)", bt.stream, j, v, first+int64(j))
			}
		}
		if last := stored[bt.ids[len(bt.ids)-1]]; bt.acked && last.Position != bt.pos {
			t.Errorf("append to %q: Append returned %s, its last event is at %s", bt.stream, bt.pos, last.Position)
		}
	}
	t.Logf("round %d: log holds %d events in %d streams; %d appends were in flight at the kill, %d of them committed whole", round, len(all), len(versions), inFlight, committed)

	// Load agrees with ReadAll, stream by stream, and the reopened store takes new appends where the
	// streams left off.
	for stream, n := range versions {
		envs, err := s.Load(ctx, stream, 1)
		if err != nil {
			t.Fatalf("Load(%q): %v", stream, err)
		}
		if int64(len(envs)) != n {
			t.Errorf("Load(%q) = %d events; ReadAll has %d", stream, len(envs), n)
		}
		for _, env := range envs {
			if got := stored[env.ID]; got.Version != env.Version || got.Position != env.Position {
				t.Errorf("stream %q: Load has %s at version %d, %s; ReadAll at version %d, %s", stream, env.ID, env.Version, env.Position, got.Version, got.Position)
			}
		}
		ev := newEvent(-1, round)
		pos, err := s.Append(ctx, stream, eventstore.Exact(n), ev)
		if err != nil {
			t.Errorf("after the crash, Append(%q, %s): %v", stream, eventstore.Exact(n), err)
			continue
		}
		if err := log.record(fmt.Sprintf("try %s %s", stream, ev.ID), round); err != nil {
			t.Fatal(err)
		}
		if err := log.record(fmt.Sprintf("ack %s %s %s", stream, ev.ID, pos), round); err != nil {
			t.Fatal(err)
		}
	}
}

// checkIntact checks that a stored event is one that was tried, in the stream it was tried on, with
// its body and metadata whole.
func checkIntact(t *testing.T, env eventstore.Envelope, log *ledger) {
	t.Helper()
	bt, ok := log.tried[env.ID]
	if !ok {
		t.Errorf("event %s in %q was never tried by anyone", env.ID, env.Stream)
		return
	}
	if env.Stream != bt.stream {
		t.Errorf("event %s is in %q; it was appended to %q", env.ID, env.Stream, bt.stream)
	}
	var got body
	if err := json.Unmarshal(env.Data, &got); err != nil || got.ID != env.ID {
		t.Errorf("event %s: data %q is not its own body (%v)", env.ID, env.Data, err)
	}
	if env.Type != eventType || env.SchemaVersion != 1 || env.Metadata.Actor != actor || env.Metadata.CorrelationID != env.ID.String() || env.Metadata.Time.IsZero() {
		t.Errorf("event %s: type %q, schema %d, metadata %+v; not what was appended", env.ID, env.Type, env.SchemaVersion, env.Metadata)
	}
}
