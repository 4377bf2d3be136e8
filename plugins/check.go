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
	// Problems are every plugin or tool that would not load, with where and why.
	Problems []Problem
}

// Check validates user plugins as the server would load them at boot, beside the built-ins (so a name
// that collides with a built-in is reported too). path is either one plugin folder (it holds
// manifest.json) or a PLUGINS_DIR of plugin folders. Only problems of the checked plugins are
// reported; Go handlers ("handler": "go") are not available to user plugins and are reported missing.
func Check(ctx context.Context, path string) (CheckResult, error) {
	info, err := os.Stat(path)
	if err != nil {
		return CheckResult{}, fmt.Errorf("plugins check: %w", err)
	}
	if !info.IsDir() {
		return CheckResult{}, fmt.Errorf("plugins check: %s is not a directory", path)
	}
	opts := Options{}
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
