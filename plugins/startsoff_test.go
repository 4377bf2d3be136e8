package plugins

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// What starts Off: tools.json's mutating when it says so, else a policy.default_off pattern, else (where
// tools.json does not say) a writing verb in the name less the integration's prefix (so an integration
// named after a verb does not make every tool a write).
func TestStartsOff(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		name, integration string
		mutating          *bool
		off               bool
		rule              string
		policy            bool // the integration's manifest has policy.default_off ["github_list_*", "*_secrets"]
	}{
		{"github_create_issue", "github", &yes, true, RuleMutating, false},
		{"github_create_issue", "github", &no, false, "", false},
		{"github_create_issue", "github", nil, true, RuleWritingVerb, false},
		{"github_list_repos", "github", nil, false, "", false},
		{"post_office_list_letters", "post-office", nil, false, "", false},
		{"post_office_send_letter", "post-office", nil, true, RuleWritingVerb, false},
		{"gitlab_list_merge_requests", "gitlab", &no, false, "", false},
		{"datadog_mute_monitor", "datadog", &yes, true, RuleMutating, false},
		// policy.default_off: after an explicit mutating, before the writing verb; an explicit "not
		// mutating" does not lift it.
		{"github_list_repos", "github", &no, true, RulePolicy, true},
		{"github_list_repos", "github", nil, true, RulePolicy, true},
		{"github_read_secrets", "github", nil, true, RulePolicy, true},
		{"github_create_issue", "github", &yes, true, RuleMutating, true},
		{"github_create_issue", "github", nil, true, RuleWritingVerb, true},
		{"github_get_repo", "github", nil, false, "", true},
	} {
		tool := &Tool{Name: tc.name, Integration: tc.integration, Mutating: tc.mutating}
		if tc.policy {
			tool.integration = &Integration{Manifest: Manifest{Policy: &Policy{DefaultOff: []string{"github_list_*", "*_secrets"}}}}
		}
		if off, rule := tool.StartsOff(); off != tc.off || rule != tc.rule {
			t.Errorf("%s (mutating %v): StartsOff = %v, %q; want %v, %q", tc.name, tc.mutating, off, rule, tc.off, tc.rule)
		}
	}
}

// Every shipped tool says whether it is mutating: none is left to the name heuristic.
func TestShippedToolsSayMutating(t *testing.T) {
	reg, problems := Load(context.Background(), Options{Builtins: shippedBuiltins(t)})
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

// policy.default_off is checked at load: at most 64 patterns, none empty, long or with control characters.
func TestManifestPolicyValidation(t *testing.T) {
	base := `{"name":"pol","version":"1","display_name":"Pol","description":"x","auth":{"mode":"none"},"policy":{"default_off":%s}}`
	if _, err := ParseManifest([]byte(fmt.Sprintf(base, `["pol_delete_*"]`))); err != nil {
		t.Fatalf("a valid policy refused: %v", err)
	}
	many := make([]string, 65)
	for i := range many {
		many[i] = fmt.Sprintf("%q", fmt.Sprintf("p%d", i))
	}
	for _, bad := range []string{`[""]`, `["  "]`, `["a\u0007b"]`, fmt.Sprintf(`[%q]`, strings.Repeat("x", 129)), "[" + strings.Join(many, ",") + "]"} {
		if _, err := ParseManifest([]byte(fmt.Sprintf(base, bad))); err == nil || !strings.Contains(err.Error(), "policy.default_off") {
			t.Errorf("policy %s: %v, want an error naming policy.default_off", bad, err)
		}
	}
}
