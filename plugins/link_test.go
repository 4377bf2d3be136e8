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
		{"sentry: next with results", []string{`<https://sentry.io/api/0/x/?cursor=0:0:1>; rel="previous"; results="false"; cursor="0:0:1", <https://sentry.io/api/0/x/?cursor=0:100:0>; rel="next"; results="true"; cursor="0:100:0"`}, "https://sentry.io/api/0/x/?cursor=0:100:0"},
		{"sentry: next without results is the end", []string{`<https://sentry.io/api/0/x/?cursor=0:0:1>; rel="previous"; results="true"; cursor="0:0:1", <https://sentry.io/api/0/x/?cursor=0:200:0>; rel="next"; results="false"; cursor="0:200:0"`}, ""},
		{"results=false on another link does not hide next", []string{`<https://x/p>; rel="prev"; results="false", <https://x/n>; rel="next"`}, "https://x/n"},
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
