package auditrm

import (
	"slices"
	"strings"
	"time"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
)

// Filter selects records. Zero fields select everything.
type Filter struct {
	// From and To bound Record.Time: From is inclusive, To exclusive. Zero means unbounded.
	From, To time.Time
	// Email keeps the records of the user with this address (normalised as identity does).
	Email string
	// Integration keeps the records about this integration, curl sessions minted for it among them;
	// records about none (API keys, shreds) are left out when it is set.
	Integration string
}

// normalized checks f and returns it with the email normalised. Its errors are *domain.Error with
// CodeInvalid, worded for the command line.
func (f Filter) normalized() (Filter, error) {
	if !f.From.IsZero() && !f.To.IsZero() && !f.From.Before(f.To) {
		return f, domain.Errorf(domain.CodeInvalid, "the time range is empty: --from is %s and --to ends before %s",
			f.From.UTC().Format(time.RFC3339Nano), f.To.UTC().Format(time.RFC3339Nano))
	}
	if f.Email != "" {
		e, err := identitydom.NormalizeEmail(f.Email)
		if err != nil {
			return f, domain.Errorf(domain.CodeInvalid, "--user: %s", domain.ErrorMessage(err))
		}
		f.Email = e
	}
	f.Integration = strings.TrimSpace(f.Integration)
	return f, nil
}

// Validate reports whether f is usable: From before To, and a well-formed email.
func (f Filter) Validate() error {
	_, err := f.normalized()
	return err
}

// Match reports whether r passes f. f must be normalised (Replay does it).
func (f Filter) Match(r Record) bool {
	if !f.From.IsZero() && r.Time.Before(f.From) {
		return false
	}
	if !f.To.IsZero() && !r.Time.Before(f.To) {
		return false
	}
	if f.Email != "" && r.Email != f.Email {
		return false
	}
	if f.Integration != "" && r.Integration != f.Integration && !slices.Contains(r.Integrations, f.Integration) {
		return false
	}
	return true
}

const dateLayout = "2006-01-02"

// ParseFrom reads a --from value: an RFC 3339 time, or a date (YYYY-MM-DD) meaning its first instant,
// midnight UTC.
func ParseFrom(s string) (time.Time, error) {
	t, _, err := parseTime("--from", s)
	if err != nil {
		return time.Time{}, err
	}
	return t, nil
}

// ParseTo reads a --to value: an RFC 3339 time (exclusive), or a date (YYYY-MM-DD) meaning through the
// end of that day UTC, so `--from 2025-01-01 --to 2025-01-31` covers the whole of January.
func ParseTo(s string) (time.Time, error) {
	t, date, err := parseTime("--to", s)
	if err != nil {
		return time.Time{}, err
	}
	if date {
		t = t.AddDate(0, 0, 1)
	}
	return t, nil
}

// parseTime reads a time or a date; its error is a *domain.Error naming the flag.
func parseTime(flag, s string) (t time.Time, date bool, err error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(dateLayout, s); err == nil {
		return t.UTC(), true, nil
	}
	t, err = time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, false, domain.Errorf(domain.CodeInvalid,
			"%s %q is neither an RFC 3339 time (2025-01-31T13:45:00Z) nor a date (2025-01-31)", flag, s)
	}
	return t.UTC(), false, nil
}
