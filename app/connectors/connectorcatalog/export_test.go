package connectorcatalog_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/plugins/connector"
)

// The export carries the admin's copy and schema of listed tools the manifest does not name; one the
// hint or verb rules start Off is exported mutating, so it starts Off where the export is loaded too.
func TestExportKeepsOverridesOfListedTools(t *testing.T) {
	const tok = "tok-export-6161"
	r := newRemote(t, tok)
	w := newWorld(t, worldOptions{FS: manifestFS(r.URL(), nil)})
	w.MustConnect(owner(login.ScopeAgent, agent), tok)
	edit := func(tool, desc string) {
		t.Helper()
		b, _ := json.Marshal(desc)
		if _, err := w.Svc.SetToolOverrides(w.Ctx, "admin", "mcp_remote", tool, map[string]json.RawMessage{"description": b}); err != nil {
			t.Fatal(err)
		}
	}
	edit("echo", "Echo, as the admin wrote it.")
	edit("wipe_everything", "Wipes it all (edited).")
	edit("create_issue", "Open an issue (edited).")
	raw, err := w.Svc.Export(w.Ctx, "mcp_remote")
	if err != nil {
		t.Fatal(err)
	}
	cs, problems := connector.Load(fstest.MapFS{"remote/connector.json": {Data: raw}}, "registry", nil)
	if len(problems) > 0 || len(cs) != 1 {
		t.Fatalf("the loader refuses the export: %v\n%s", problems, raw)
	}
	got := map[string]connector.ManifestTool{}
	for _, mt := range cs[0].Manifest.Tools {
		got[mt.Name] = mt
	}
	if mt, ok := got["echo"]; !ok || mt.Description != "Echo, as the admin wrote it." || mt.Mutating {
		t.Fatalf("echo in the export: %+v (ok=%v)\n%s", mt, ok, raw)
	}
	if mt, ok := got["wipe_everything"]; !ok || mt.Description != "Wipes it all (edited)." || !mt.Mutating {
		t.Fatalf("wipe_everything in the export: %+v (ok=%v)\n%s", mt, ok, raw)
	}
	if mt := got["create_issue"]; mt.Description != "Open an issue (edited)." {
		t.Fatalf("create_issue in the export: %+v", mt)
	}
	if _, ok := got["whoami"]; ok || strings.Contains(string(raw), `"whoami"`) && !strings.Contains(string(raw), `"default_off"`) {
		t.Fatalf("a listed tool without an override was exported: %s", raw)
	}
}
