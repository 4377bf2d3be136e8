package jotshttp

import (
	"strings"
	"testing"
	"time"

	"github.com/workbench/workbench/internal/signed"
)

// validCookie's verdicts, including the two it gained with internal/signed: a cookie over the cap is
// refused before it is decoded (even one genuinely signed), and a MAC has one spelling.
func TestValidCookie(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	key := []byte(strings.Repeat("k", 32))
	cookies, err := newCookieSealer(key, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	h := &Handler{cookies: cookies}
	v, err := h.signCookie("site", "hash-1", now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	type padded struct {
		access
		Pad string `json:"pad"`
	}
	big, err := signed.New[padded](key, cookieLabel, &signed.Options{MaxLen: 4 * maxCookieLen})
	if err != nil {
		t.Fatal(err)
	}
	a := access{Name: "site", Tag: passwordTag("hash-1")}
	short, _ := big.Seal(padded{access: a, Pad: "p"}, now.Add(time.Hour))
	long, _ := big.Seal(padded{access: a, Pad: strings.Repeat("p", maxCookieLen)}, now.Add(time.Hour))
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	respelled := v[:len(v)-1] + string(alphabet[strings.IndexByte(alphabet, v[len(v)-1])|1])

	for _, tc := range []struct {
		name, value, jot, hash string
		at                     time.Time
		want                   bool
	}{
		{"genuine", v, "site", "hash-1", now, true},
		{"a second before expiry", v, "site", "hash-1", now.Add(time.Hour - time.Second), true},
		{"expired", v, "site", "hash-1", now.Add(time.Hour), false},
		{"another jot", v, "other", "hash-1", now, false},
		{"the password changed", v, "site", "hash-2", now, false},
		{"padded, under the cap", short, "site", "hash-1", now, true},
		{"padded, over the cap", long, "site", "hash-1", now, false},
		{"MAC respelled", respelled, "site", "hash-1", now, false},
		{"empty", "", "site", "hash-1", now, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			saved := now
			now = tc.at
			defer func() { now = saved }()
			if got := h.validCookie(tc.value, tc.jot, tc.hash); got != tc.want {
				t.Fatalf("validCookie = %v, want %v", got, tc.want)
			}
		})
	}
}
