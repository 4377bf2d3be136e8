package executions

import "testing"

func TestDetailCode(t *testing.T) {
	for msg, want := range map[string]string{
		"browser_navigate: HUMAN_IN_CONTROL: a person is driving this browser": "HUMAN_IN_CONTROL",
		"HUMAN_IN_CONTROL: a person is driving":                                "HUMAN_IN_CONTROL",
		"BROWSER_SESSION_BUSY: retry":                                          "BROWSER_SESSION_BUSY",
		"github_list_repos: the API answered 500":                              "",
		"the URL is HTTP: not allowed":                                         "",
		"NOT_A_CODE without a colon":                                           "",
		"":                                                                     "",
		"abcHUMAN_IN_CONTROL: inside a word":                                   "",
	} {
		if got := detailCode(msg); got != want {
			t.Errorf("detailCode(%q) = %q, want %q", msg, got, want)
		}
	}
}
