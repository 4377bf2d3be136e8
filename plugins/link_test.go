package plugins

import "testing"

func TestNextLink(t *testing.T) {
	tests := []struct {
		name   string
		header []string
		want   string
	}{
		{"github style", []string{`<https://api.github.com/user/repos?page=2>; rel="next", <https://api.github.com/user/repos?page=5>; rel="last"`}, "https://api.github.com/user/repos?page=2"},
		{"next last", []string{`<https://x/a?page=1>; rel="prev", <https://x/a?page=3>; rel="next"`}, "https://x/a?page=3"},
		{"comma inside the URL", []string{`<https://x/wiki/api/v2/pages?keys=DEV,OPS&cursor=abc>; rel="next"`}, "https://x/wiki/api/v2/pages?keys=DEV,OPS&cursor=abc"},
		{"unquoted rel and extra params", []string{`<https://x/b?c=1>; title="t, u"; rel=next`}, "https://x/b?c=1"},
		{"several rels", []string{`<https://x/c>; rel="last next"`}, "https://x/c"},
		{"no next", []string{`<https://x/a?page=1>; rel="prev"`}, ""},
		{"two headers", []string{`<https://x/p>; rel="prev"`, `<https://x/n>; rel="next"`}, "https://x/n"},
		{"garbage", []string{`rel="next"`, `<unterminated; rel="next"`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nextLink(tt.header); got != tt.want {
				t.Fatalf("nextLink = %q, want %q", got, tt.want)
			}
		})
	}
}
