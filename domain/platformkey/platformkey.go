package platformkey

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/workbench/workbench/domain"
)

// Event type names, never changed once stored.
const (
	TypeSet     = "platformkey.set"
	TypeRemoved = "platformkey.removed"
)

// The kinds of name.
const (
	KindIntegration = "integration"
	KindConnector   = "connector"
	KindGitHubApp   = "github_app"
)

// GitHubApp is the name of the GitHub App's key.
const GitHubApp = "github_app"

var slugPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)

// Parse splits a key name into its kind and slug (empty for github_app); a name of no known form is
// CodeUnprocessable naming the forms.
func Parse(name string) (kind, slug string, err error) {
	if name == GitHubApp {
		return KindGitHubApp, "", nil
	}
	k, s, ok := strings.Cut(name, ":")
	if ok && (k == KindIntegration || k == KindConnector) && slugPattern.MatchString(s) {
		return k, s, nil
	}
	return "", "", domain.Errorf(domain.CodeUnprocessable,
		"platform key name %q is not integration:<plugin slug>, connector:<connector slug> or github_app", name)
}

// StreamName is the stream of one key.
func StreamName(name string) string { return "platformkey-" + name }

// Set records a key's sealed fields. Fields are the field names, sorted; Sealed holds their values
// (a JSON object) sealed under its own vault subject, so that a removal or a replacement shreds them.
type Set struct {
	Name   string        `json:"name"`
	Fields []string      `json:"fields"`
	Sealed domain.Sealed `json:"sealed"`
	By     string        `json:"by"`
	At     time.Time     `json:"at"`
}

// Removed records that a key is gone.
type Removed struct {
	Name string    `json:"name"`
	By   string    `json:"by"`
	At   time.Time `json:"at"`
}

func (Set) EventType() string     { return TypeSet }
func (Removed) EventType() string { return TypeRemoved }

// Events lists the event types, for a codec.
func Events() []domain.Event { return []domain.Event{Set{}, Removed{}} }

// State is a key's stream folded: the last Set while the key is set.
type State struct {
	IsSet bool
	Last  Set
}

// Initial is the state of no stream.
func Initial() State { return State{} }

// Evolve folds one event.
func Evolve(s State, e domain.Event) State {
	switch ev := e.(type) {
	case Set:
		return State{IsSet: true, Last: ev}
	case Removed:
		return State{}
	}
	return s
}

// Command changes a key: SetKey or RemoveKey.
type Command interface {
	decide(State) ([]domain.Event, error)
}

// Decide turns a command into its events or refuses it with a *domain.Error.
func Decide(s State, c Command) ([]domain.Event, error) {
	if c == nil {
		return nil, domain.Errorf(domain.CodeInvalid, "no command")
	}
	return c.decide(s)
}

// SetKey sets (or replaces) a key.
type SetKey struct {
	Name   string
	Fields []string
	Sealed domain.Sealed
	By     string
	At     time.Time
}

func (c SetKey) decide(State) ([]domain.Event, error) {
	if _, _, err := Parse(c.Name); err != nil {
		return nil, err
	}
	if len(c.Fields) == 0 {
		return nil, domain.Errorf(domain.CodeUnprocessable, "platform key %s: no fields", c.Name)
	}
	if c.Sealed.IsZero() || c.By == "" || c.At.IsZero() {
		return nil, domain.Errorf(domain.CodeInvalid, "platform key %s: no sealed value, author or time", c.Name)
	}
	fields := slices.Clone(c.Fields)
	slices.Sort(fields)
	if len(slices.Compact(slices.Clone(fields))) != len(fields) {
		return nil, domain.Errorf(domain.CodeUnprocessable, "platform key %s: a field is named twice", c.Name)
	}
	return []domain.Event{Set{Name: c.Name, Fields: fields, Sealed: c.Sealed, By: c.By, At: c.At.UTC()}}, nil
}

// RemoveKey removes a key; a key that is not set is CodeNotFound.
type RemoveKey struct {
	Name string
	By   string
	At   time.Time
}

func (c RemoveKey) decide(s State) ([]domain.Event, error) {
	if _, _, err := Parse(c.Name); err != nil {
		return nil, err
	}
	if !s.IsSet {
		return nil, domain.Errorf(domain.CodeNotFound, "platform key %s is not set", c.Name)
	}
	if c.By == "" || c.At.IsZero() {
		return nil, domain.Errorf(domain.CodeInvalid, "platform key %s: no author or time", c.Name)
	}
	return []domain.Event{Removed{Name: c.Name, By: c.By, At: c.At.UTC()}}, nil
}
