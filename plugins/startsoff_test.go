package plugins

import (
	"context"
	"testing"
)

// What starts Off: tools.json's mutating when it says, else a writing verb in the name less the
// integration's prefix (so an integration named after a verb does not make every tool a write).
func TestStartsOff(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		name, integration string
		mutating          *bool
		off               bool
		rule              string
	}{
		{"github_create_issue", "github", &yes, true, RuleMutating},
		{"github_create_issue", "github", &no, false, ""},
		{"github_create_issue", "github", nil, true, RuleWritingVerb},
		{"github_list_repos", "github", nil, false, ""},
		{"post_office_list_letters", "post-office", nil, false, ""},
		{"post_office_send_letter", "post-office", nil, true, RuleWritingVerb},
		{"gitlab_list_merge_requests", "gitlab", &no, false, ""},
		{"datadog_mute_monitor", "datadog", &yes, true, RuleMutating},
	} {
		tool := &Tool{Name: tc.name, Integration: tc.integration, Mutating: tc.mutating}
		if off, rule := tool.StartsOff(); off != tc.off || rule != tc.rule {
			t.Errorf("%s (mutating %v): StartsOff = %v, %q; want %v, %q", tc.name, tc.mutating, off, rule, tc.off, tc.rule)
		}
	}
}

// Every shipped tool says whether it is mutating: none is left to the name heuristic.
func TestShippedToolsSayMutating(t *testing.T) {
	reg, problems := Load(context.Background(), Options{})
	if len(problems) > 0 {
		t.Fatalf("the shipped plugins do not load: %v", problems)
	}
	if len(reg.Tools()) < 200 {
		t.Fatalf("only %d shipped tools loaded", len(reg.Tools()))
	}
	for _, tool := range reg.Tools() {
		if tool.Mutating == nil {
			t.Errorf("%s: tools.json does not say mutating", tool.Name)
		}
	}
}
