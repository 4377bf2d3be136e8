//go:build !linux

package browserpool

import "syscall"

// procAttr starts Chromium as the leader of its own process group.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// subreaper is Linux only; elsewhere init reaps Chromium's orphans.
func subreaper() {}

// chromiumChildren is Linux only (it reads /proc).
func chromiumChildren() map[int]bool { return nil }

// sweepZombies is Linux only.
func sweepZombies() {}
