package plugins

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func searchRegistry(tools ...*Tool) *Registry {
	r := &Registry{tools: map[string]*Tool{}}
	for _, t := range tools {
		t.nameTokens, t.descTokens = tokenize(t.Name), tokenize(t.Description)
		r.tools[t.Name] = t
	}
	// Load sorts by name; do the same.
	for _, n := range sortedKeys(r.tools) {
		r.toolOrder = append(r.toolOrder, r.tools[n])
	}
	return r
}

func TestSearchRanking(t *testing.T) {
	r := searchRegistry(
		&Tool{Name: "github_list_issues", Integration: "github", Description: "List issues of a repository."},
		&Tool{Name: "github_create_issue", Integration: "github", Description: "Open a new issue."},
		&Tool{Name: "github_issue", Integration: "github", Description: "Get an issue."},
		&Tool{Name: "github_issue_comments", Integration: "github", Description: "Comments of an issue."},
		&Tool{Name: "jira_create_issue", Integration: "jira", Description: "Create a Jira issue."},
		&Tool{Name: "jira_search", Integration: "jira", Description: "Search issues with JQL."},
		&Tool{Name: "slack_send_message", Integration: "slack", Description: "Post a message to a channel."},
		&Tool{Name: "utils_hash", Integration: "utils", Description: "Hash text with SHA256."},
	)
	tests := []struct {
		name        string
		query       string
		integration string
		limit       int
		want        []string
	}{
		{"exact name, then prefix, then name tokens, then description", "github_issue", "", 0,
			[]string{"github_issue", "github_issue_comments", "github_list_issues", "github_create_issue", "jira_create_issue", "jira_search"}},
		{"spaces and hyphens match underscores for exact and prefix", "github issue", "", 2,
			[]string{"github_issue", "github_issue_comments"}},
		{"more name words first, then more description words, then shorter name", "create issue", "", 0,
			[]string{"jira_create_issue", "github_create_issue", "github_issue", "github_list_issues", "github_issue_comments", "jira_search"}},
		{"word prefix matches a longer word", "issu", "jira", 0,
			[]string{"jira_create_issue", "jira_search"}},
		{"description only", "sha256", "", 0, []string{"utils_hash"}},
		{"case and stop words ignored", "Send A MESSAGE to the channel", "", 0, []string{"slack_send_message"}},
		{"integration filter", "issue", "jira", 0, []string{"jira_create_issue", "jira_search"}},
		{"limit", "issue", "", 2, []string{"github_issue", "jira_create_issue"}},
		{"no match", "kubernetes", "", 0, nil},
		{"unknown integration", "issue", "nope", 0, nil},
		{"empty query lists by name", "", "jira", 0, []string{"jira_create_issue", "jira_search"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, tl := range r.Search(tc.query, tc.integration, tc.limit) {
				got = append(got, tl.Name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Search(%q, %q, %d) (-want +got):\n%s", tc.query, tc.integration, tc.limit, diff)
			}
		})
	}
}

func TestSearchDeterministic(t *testing.T) {
	r, _ := Load(t.Context(), Options{Builtins: shippedBuiltins(t)})
	first := r.Search("repo", "", 0)
	for range 20 {
		again := r.Search("repo", "", 0)
		if len(again) != len(first) {
			t.Fatal("result count changed")
		}
		for i := range first {
			if first[i] != again[i] {
				t.Fatalf("order changed at %d", i)
			}
		}
	}
	if len(first) == 0 || first[0].Name != "github_get_repo" {
		t.Errorf("repo should rank github_get_repo first, got %v", first)
	}
}
