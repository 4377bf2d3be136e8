package shippedconnectors

import "testing"

func TestShippedFoldersLoad(t *testing.T) {
	cs, problems := Load(nil)
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	got := map[string]bool{}
	for _, c := range cs {
		got[c.Manifest.Slug] = true
		if len(c.Logo) == 0 {
			t.Errorf("%s has no logo", c.Manifest.Slug)
		}
	}
	for _, want := range []string{"sentry", "github-mcp", "todoist", "github"} {
		if !got[want] {
			t.Errorf("%s did not load", want)
		}
	}
}
