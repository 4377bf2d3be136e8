package connector

import (
	"slices"
	"strings"
	"testing"
)

// ModelNames: unique, at most 128 characters, the same for a remote name whatever order the listing
// has, and a suffixed name that a listed tool already holds gets a longer suffix.
func TestModelNames(t *testing.T) {
	long := strings.Repeat("y", 200)
	remotes := []string{"a.b", "a_b", "a/b", long, "plain", "plain", "..."}
	names, renamed := ModelNames("p", remotes)
	if names[1] != "p_a_b" || names[4] != "p_plain" || names[5] != "" || names[6] != "" {
		t.Fatalf("names = %q", names)
	}
	seen := map[string]bool{}
	for i, n := range names {
		if n == "" {
			continue
		}
		if seen[n] || len(n) > MaxToolNameLen {
			t.Fatalf("%q: %q is taken or too long (%d)", remotes[i], n, len(n))
		}
		seen[n] = true
	}
	if want := []string{"a.b", "a/b", long}; !slices.Equal(renamed, want) {
		t.Fatalf("renamed = %q, want %q", renamed, want)
	}
	rev := slices.Clone(remotes[:4])
	slices.Reverse(rev)
	again, _ := ModelNames("p", rev)
	for i, r := range rev {
		if j := slices.Index(remotes, r); names[j] != again[i] {
			t.Fatalf("%q is %q in one order, %q in another", r, names[j], again[i])
		}
	}
	// A listed tool named like another's suffixed name keeps it; the other takes a longer suffix.
	squat := strings.TrimPrefix(names[0], "p_")
	n2, _ := ModelNames("p", []string{"a.b", "a_b", squat})
	if n2[2] != names[0] || n2[0] == names[0] || n2[0] == "" || !strings.HasPrefix(n2[0], "p_a_b_") {
		t.Fatalf("with %q listed: %q", squat, n2)
	}
}
