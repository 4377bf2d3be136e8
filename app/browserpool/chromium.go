package browserpool

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/launcher/flags"
	"github.com/go-rod/rod/lib/proto"
)

// instance is one running Chromium: its process (leader of its own process group), the CDP connection,
// and its containment proxy.
type instance struct {
	cmd     *exec.Cmd
	pid     int
	exited  chan struct{} // closed once the process has been waited for
	browser *rod.Browser
	guard   *guard
	stderr  *tail

	pageMu sync.Mutex // held while the current page is found or made
	page   *rod.Page

	mu      sync.Mutex
	stopped bool // stop was called: an exit is not a crash
}

// launchArgs are Chromium's command-line flags for a profile directory and a proxy address. rod's
// launcher only formats them: the process is started here, never by rod, so nothing is ever downloaded.
func launchArgs(profile, proxyAddr string, noSandbox bool) []string {
	l := launcher.New().
		Leakless(false).
		Headless(true).
		NoSandbox(noSandbox).
		UserDataDir(profile).
		Set(flags.RemoteDebuggingPort, "0").
		Set(flags.ProxyServer, "http://"+proxyAddr).
		// Chromium never sends loopback through a proxy unless told: "<-loopback>" removes that bypass,
		// so http://127.0.0.1 is judged by the proxy like any other address.
		Set("proxy-bypass-list", "<-loopback>").
		Set("disable-background-networking").
		Set("disable-component-update").
		Set("disable-sync").
		Set("no-first-run").
		Set("disable-gpu").
		Set("disable-extensions").
		Set("disable-breakpad").
		Set("mute-audio").
		// WebRTC would otherwise send UDP around the proxy.
		Set("force-webrtc-ip-handling-policy", "disable_non_proxied_udp").
		Set("webrtc-ip-handling-policy", "disable_non_proxied_udp").
		Set("window-size", "1280,800").
		// A page left by Back or Forward is closed, not kept alive in the back/forward cache: rod holds
		// on to the JavaScript context it last evaluated in and learns it is stale only when evaluating
		// there fails, so a cached page would be evaluated in silently (the live view's Back and Forward
		// are history.back() and history.forward(); the agent's tools after them read the page).
		Set("disable-back-forward-cache").
		// rod's default lets every popup open; Chromium's own blocker stays on.
		Delete("disable-popup-blocking").
		Delete(flags.Bin)
	l.Set(flags.Arguments, "about:blank")
	return l.FormatArgs()
}

var devtoolsRE = regexp.MustCompile(`DevTools listening on (ws://\S+)`)

// tail keeps the last bytes Chromium wrote to stderr and reports the DevTools URL once.
type tail struct {
	mu   sync.Mutex
	buf  []byte
	url  chan string
	sent bool
	line []byte
}

func newTail() *tail { return &tail{url: make(chan string, 1)} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 4096 {
		t.buf = t.buf[len(t.buf)-4096:]
	}
	if !t.sent {
		t.line = append(t.line, p...)
		if m := devtoolsRE.FindSubmatch(t.line); m != nil {
			t.url <- string(m[1])
			t.sent = true
			t.line = nil
		} else if len(t.line) > 16384 {
			t.line = t.line[len(t.line)-4096:]
		}
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}

// start launches Chromium on profile behind g and connects to it.
func start(ctx context.Context, bin, profile string, g *guard) (*instance, error) {
	cmd := exec.Command(bin, launchArgs(profile, g.addr(), os.Geteuid() == 0)...)
	cmd.SysProcAttr = procAttr()
	cmd.Env = append(os.Environ(), "HOME="+profile)
	st := newTail()
	cmd.Stdout = st
	cmd.Stderr = st
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("browser: start %s: %w", bin, err)
	}
	in := &instance{cmd: cmd, pid: cmd.Process.Pid, exited: make(chan struct{}), guard: g, stderr: st}
	go func() {
		_ = cmd.Wait()
		close(in.exited)
	}()
	var wsURL string
	select {
	case wsURL = <-st.url:
	case <-in.exited:
		return nil, fmt.Errorf("browser: %s exited before it was ready: %s", bin, lastLine(st.String()))
	case <-ctx.Done():
		in.kill()
		return nil, fmt.Errorf("browser: start %s: %w", bin, ctx.Err())
	}
	b := rod.New().ControlURL(wsURL).NoDefaultDevice().Context(context.Background())
	if err := b.Connect(); err != nil {
		in.kill()
		return nil, fmt.Errorf("browser: connect to %s: %w", bin, err)
	}
	in.browser = b
	if err := (proto.BrowserSetDownloadBehavior{Behavior: proto.BrowserSetDownloadBehaviorBehaviorDeny}).Call(b); err != nil {
		in.kill()
		return nil, fmt.Errorf("browser: turn downloads off: %w", err)
	}
	return in, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// alive reports whether the process has not exited.
func (in *instance) alive() bool {
	select {
	case <-in.exited:
		return false
	default:
		return true
	}
}

// stop closes Chromium: politely first (it flushes cookies to the profile and ends its children), then
// by killing its process group. It returns once the process has been reaped and no process of its group
// remains.
func (in *instance) stop(grace time.Duration) {
	in.mu.Lock()
	in.stopped = true
	in.mu.Unlock()
	if in.browser != nil && in.alive() {
		done := make(chan struct{})
		go func() {
			_ = in.browser.Timeout(grace).Close()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(grace):
		}
		select {
		case <-in.exited:
		case <-time.After(grace):
		}
	}
	in.kill()
	in.guard.close()
}

// kill ends the process group and waits until the leader is reaped and no process of the group is
// left. Renderers and helpers are the leader's children: once it is gone they are reparented to this
// process (a child subreaper, see subreaper) and reaped here, so none stays a zombie even under an init
// that does not reap.
func (in *instance) kill() {
	_ = syscall.Kill(-in.pid, syscall.SIGKILL)
	<-in.exited
	self := os.Getpid()
	for range 500 {
		left := 0
		for _, pr := range groupProcs(in.pid) {
			left++
			if pr.ppid == self && pr.state == 'Z' {
				var ws syscall.WaitStatus
				if n, _ := syscall.Wait4(pr.pid, &ws, syscall.WNOHANG, nil); n == pr.pid {
					left--
				}
			}
		}
		if left == 0 {
			sweepZombies()
			return
		}
		_ = syscall.Kill(-in.pid, syscall.SIGKILL)
		time.Sleep(10 * time.Millisecond)
	}
}

// crashed reports whether the process exited without stop being called.
func (in *instance) crashed() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return !in.stopped && !in.alive()
}

type proc struct {
	pid, ppid int
	state     byte
}

// groupProcs lists the processes whose process group is pgid, zombies included, from /proc.
func groupProcs(pgid int) []proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pr, group, ok := procStat(pid); ok && group == pgid {
			out = append(out, pr)
		}
	}
	return out
}

// groupPIDs lists the live processes of process group pgid (zombies excluded).
func groupPIDs(pgid int) []int {
	var out []int
	for _, pr := range groupProcs(pgid) {
		if pr.state != 'Z' && pr.state != 'X' {
			out = append(out, pr.pid)
		}
	}
	return out
}

// GroupProcesses lists every process of a Chromium's process group still present, zombies included
// (tests check that none is left after a stop or Close).
func GroupProcesses(pgid int) []int {
	var out []int
	for _, pr := range groupProcs(pgid) {
		out = append(out, pr.pid)
	}
	return out
}

// procStat reads a process's state, parent and process group from /proc/<pid>/stat.
func procStat(pid int) (pr proc, pgid int, ok bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return pr, 0, false
	}
	// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses: split after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return pr, 0, false
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 3 {
		return pr, 0, false
	}
	ppid, err1 := strconv.Atoi(fields[1])
	g, err2 := strconv.Atoi(fields[2])
	if err1 != nil || err2 != nil {
		return pr, 0, false
	}
	return proc{pid: pid, ppid: ppid, state: fields[0][0]}, g, true
}

// memoryBytes is the memory a Chromium's processes hold: the sum of their proportional set sizes (shared
// pages divided among the processes sharing them), or of their resident sets where PSS is not reported.
func memoryBytes(pgid int) int64 {
	var total int64
	for _, pid := range groupPIDs(pgid) {
		total += processMemory(pid)
	}
	return total
}

func processMemory(pid int) int64 {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	if v, ok := readKB(filepath.Join(dir, "smaps_rollup"), "Pss:"); ok {
		return v
	}
	v, _ := readKB(filepath.Join(dir, "status"), "VmRSS:")
	return v
}

func readKB(path, key string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, key) {
			continue
		}
		fields := strings.Fields(line[len(key):])
		if len(fields) == 0 {
			return 0, false
		}
		n, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, false
		}
		return n * 1024, true
	}
	return 0, false
}

// errNotRunning is returned by a Session whose Chromium has stopped or crashed.
var errNotRunning = errors.New("browser: the session's Chromium is no longer running; acquire the session again")
