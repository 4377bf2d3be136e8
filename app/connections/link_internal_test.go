package connections

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/internal/signed"
)

// readLink's verdicts, on a Service holding only its link sealer and clock.
func TestReadLink(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	key := []byte(strings.Repeat("k", 32))
	s := &Service{now: func() time.Time { return now }}
	var err error
	if s.links, err = signed.New[claim](key, linkLabel, &signed.Options{MaxLen: maxLinkLen, Now: s.clock}); err != nil {
		t.Fatal(err)
	}
	c := claim{Attempt: uuid.New(), User: uuid.New(), Integration: "acme"}
	tok, err := s.mintLink(c, now.Add(LinkTTL))
	if err != nil {
		t.Fatal(err)
	}
	// A genuinely signed token over the cap (padded with a field the claim does not have).
	type padded struct {
		claim
		Pad string `json:"pad"`
	}
	big, err := signed.New[padded](key, linkLabel, &signed.Options{MaxLen: 4 * maxLinkLen, Now: s.clock})
	if err != nil {
		t.Fatal(err)
	}
	long, err := big.Seal(padded{claim: c, Pad: strings.Repeat("p", maxLinkLen)}, now.Add(LinkTTL))
	if err != nil {
		t.Fatal(err)
	}
	forged := tok[:len(tok)-2] + "AA" // a canonical encoding of other MAC bytes
	if strings.HasSuffix(tok, "AA") {
		forged = tok[:len(tok)-2] + "QA"
	}
	empty, _ := s.mintLink(claim{}, now.Add(LinkTTL))
	emptyExpired, _ := s.mintLink(claim{}, now.Add(-time.Second))

	for _, tc := range []struct {
		name  string
		token string
		at    time.Time
		want  error
	}{
		{"genuine", tok, now, nil},
		{"genuine, pasted with spaces", " " + tok + "\n", now, nil},
		{"a second before expiry", tok, now.Add(LinkTTL - time.Second), nil},
		{"expired", tok, now.Add(LinkTTL), errLinkExpired},
		{"over the cap, though genuine", long, now, errLinkInvalid},
		{"forged", forged, now, errLinkInvalid},
		{"empty claim", empty, now, errLinkInvalid},
		{"empty claim, expired", emptyExpired, now, errLinkInvalid},
		{"empty", "", now, errLinkInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			saved := now
			now = tc.at
			defer func() { now = saved }()
			got, err := s.readLink(tc.token)
			if !errors.Is(err, tc.want) && !(err == nil && tc.want == nil) {
				t.Fatalf("readLink = %v, want %v", err, tc.want)
			}
			if (err == nil || errors.Is(err, errLinkExpired)) && got != c {
				t.Fatalf("claim %+v, want %+v", got, c)
			}
			if errors.Is(err, errLinkInvalid) && got != (claim{}) {
				t.Fatalf("an invalid link yielded a claim %+v", got)
			}
		})
	}
}
