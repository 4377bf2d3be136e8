package plugins

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// CheckResult is what Check found.
type CheckResult struct {
	Integrations int
	Tools        int
	// Problems are every plugin or tool that would not load, with where and why; one Problem may
	// carry several reasons (see Count).
	Problems []Problem
}

// Count is the number of problems found: every reason of every plugin, not the number of plugins.
func (r CheckResult) Count() int {
	n := 0
	for _, p := range r.Problems {
		n += len(p.Lines())
	}
	return n
}

// Check validates user plugins as the server would load them at boot, beside the built-ins (so a name
// that collides with a built-in is reported too). path is either one plugin folder (it holds
// manifest.json) or a PLUGINS_DIR of plugin folders. Only problems of the checked plugins are
// reported; Go handlers ("handler": "go") are not available to user plugins and are reported missing.
// allowLoopback is the server's WORKBENCH_DEV_ALLOW_LOOPBACK: http:// URLs on a loopback host pass, as
// they would load in a server started with it. builtins are the server's (plugins/shipped.Plugins()).
func Check(ctx context.Context, path string, allowLoopback bool, builtins []Builtin) (CheckResult, error) {
	info, err := os.Stat(path)
	if err != nil {
		return CheckResult{}, fmt.Errorf("plugins check: %w", err)
	}
	if !info.IsDir() {
		return CheckResult{}, fmt.Errorf("plugins check: %s is not a directory", path)
	}
	opts := Options{AllowInsecureHTTP: allowLoopback, Builtins: builtins}
	if _, err := os.Stat(filepath.Join(path, ManifestFile)); err == nil {
		abs, err := filepath.Abs(path)
		if err != nil {
			return CheckResult{}, err
		}
		opts.extra = []pluginSource{{fsys: os.DirFS(abs), folder: filepath.Base(abs), source: abs}}
	} else if errors.Is(err, os.ErrNotExist) {
		opts.PluginsDir = path
	} else {
		return CheckResult{}, fmt.Errorf("plugins check: %w", err)
	}
	r, problems := Load(ctx, opts)
	res := CheckResult{}
	for _, p := range problems {
		if strings.HasPrefix(p.Source, "builtin") {
			continue
		}
		res.Problems = append(res.Problems, p)
	}
	for _, in := range r.Integrations() {
		if strings.HasPrefix(in.Source, "builtin:") {
			continue
		}
		res.Integrations++
		res.Tools += len(in.Tools())
	}
	return res, nil
}

// Lines renders a problem as one line per underlying reason, each naming the plugin folder, and the
// file and field when known.
func (p Problem) Lines() []string {
	prefix := p.Source
	if p.Tool != "" {
		prefix += ": tool " + p.Tool
	}
	var fes FieldErrors
	if errors.As(p.Err, &fes) {
		out := make([]string, 0, len(fes))
		for _, fe := range fes {
			out = append(out, prefix+": "+fe.Error())
		}
		return out
	}
	return []string{prefix + ": " + p.Err.Error()}
}
