package browserpool

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

var subreaperOnce sync.Once

// procAttr starts Chromium as the leader of its own process group, killed if this process dies.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// subreaper makes this process the child subreaper of its descendants (prctl PR_SET_CHILD_SUBREAPER):
// when a Chromium dies, its renderers are reparented here rather than to PID 1, so instance.kill can
// reap them. Containers whose init never reaps would otherwise collect a zombie per renderer.
func subreaper() {
	subreaperOnce.Do(func() {
		const prSetChildSubreaper = 36
		_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	})
}

// chromiumChildren lists this process's children that are Chromium crash handlers (Chromium starts one
// in a session of its own; it ends up here once its parent exits, and exits itself soon after its
// browser): pid and whether it is a zombie.
func chromiumChildren() map[int]bool {
	self := os.Getpid()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := map[int]bool{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if open < 0 || end < open {
			continue
		}
		comm := string(b[open+1 : end])
		fields := strings.Fields(string(b[end+1:]))
		if len(fields) < 2 || !strings.HasPrefix(comm, "chrome_crashpad") {
			continue
		}
		if ppid, err := strconv.Atoi(fields[1]); err == nil && ppid == self {
			out[pid] = fields[0] == "Z"
		}
	}
	return out
}

// sweepZombies reaps the crash handlers of this process's Chromiums that have exited.
func sweepZombies() {
	for pid, zombie := range chromiumChildren() {
		if zombie {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		}
	}
}
