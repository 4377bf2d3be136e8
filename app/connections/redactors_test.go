package connections

import (
	"testing"
	"time"
)

// The cache gives one redactor for the same values while it is fresh, another for other values (a
// refreshed token) and after redactorTTL, and never grows past maxRedactors.
func TestRedactorCache(t *testing.T) {
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	c := newRedactors(func() time.Time { return now })
	a := c.get([]string{"token-aaaaaaaaaaaa"}, nil)
	if c.get([]string{"token-aaaaaaaaaaaa"}, nil) != a {
		t.Fatal("the same values built a second redactor")
	}
	b := c.get([]string{"token-bbbbbbbbbbbb"}, nil)
	if b == a || string(b.Bytes([]byte("x token-bbbbbbbbbbbb"))) != "x "+Redacted {
		t.Fatal("a refreshed token got the old redactor")
	}
	// Values split differently between secrets and pairs are another key.
	if c.get([]string{"token-aaaaaaaaaaaa"}, []string{"token-aaaaaaaaaaaa"}) == a {
		t.Fatal("secrets with pairs share the redactor of the secrets alone")
	}
	now = now.Add(redactorTTL)
	if c.get([]string{"token-aaaaaaaaaaaa"}, nil) == a {
		t.Fatal("an entry outlived redactorTTL")
	}
	for i := range maxRedactors + 10 {
		c.get([]string{"token-" + time.Duration(i).String() + "-xxxxxxxx"}, nil)
	}
	if n := len(c.m); n > maxRedactors {
		t.Fatalf("the cache holds %d entries, more than %d", n, maxRedactors)
	}
}
