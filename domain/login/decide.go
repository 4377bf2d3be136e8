package login

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
)

// Command changes a login: Connect, SaveSettings, RecordListing or Remove.
type Command interface {
	decide(State) ([]domain.Event, error)
}

// Decide turns a command into events or refuses it with a *domain.Error.
func Decide(s State, c Command) ([]domain.Event, error) {
	if c == nil {
		return nil, domain.Errorf(domain.CodeInvalid, "no command")
	}
	return c.decide(s)
}

// OnExisting says what Connect does to a connected login of the same owner.
type OnExisting struct {
	Mode string // refuse, keep, replace, replace_when_hint
	Hint string // the account hint replace_when_hint replaces
}

// The OnExisting modes.
const (
	OnExistingRefuse          = "refuse"
	OnExistingKeep            = "keep"
	OnExistingReplace         = "replace"
	OnExistingReplaceWhenHint = "replace_when_hint"
)

// Outcome is what Connect did.
type Outcome string

const (
	OutcomeCreated     Outcome = "created"     // a new login
	OutcomeReconnected Outcome = "reconnected" // new credentials over a disconnected login, its id kept
	OutcomeRetried     Outcome = "retried"     // a pending login tried again, or a sign-in started over an unconnected one (it stays as it is until the callback), its id kept
	OutcomeReplaced    Outcome = "replaced"    // new credentials over a connected login
	OutcomeKept        Outcome = "kept"        // the stored login stays
	OutcomeCurrent     Outcome = "current"     // the credentials equal the stored ones
)

// Anew is what connecting with credentials over s does when s is not a connected login: created (no
// login), reconnected (a disconnected one) or retried (a pending one). Starting a sign-in over an
// existing login is retried whatever its status (StartAnew): nothing is connected before the callback.
func (s State) StartAnew() Outcome {
	if !s.Exists() {
		return OutcomeCreated
	}
	return OutcomeRetried
}

func (s State) Anew() Outcome {
	switch {
	case !s.Exists():
		return OutcomeCreated
	case s.Status == StatusDisconnected:
		return OutcomeReconnected
	default:
		return OutcomeRetried
	}
}

// Connect stores sealed credentials for a login (spec connectors.md, Token logins, step 3 and 5).
// SameCredentials says the caller opened the stored credentials and found them equal to these.
type Connect struct {
	NewLoginID      uuid.UUID // the id a new login gets
	ServerID        string
	Owner           Owner
	Account         string // the account's label; empty means the default account
	Credential      domain.Sealed
	SameCredentials bool
	AccountHint     string
	Settings        json.RawMessage
	NeedsSettings   []string
	OnExisting      OnExisting
	At              time.Time
}

// Resolve says what Connect does over s, or the error it refuses with.
func (c Connect) Resolve(s State) (Outcome, error) {
	if !s.Exists() || s.Status != StatusConnected {
		return s.Anew(), nil
	}
	if c.SameCredentials {
		return OutcomeCurrent, nil
	}
	switch c.OnExisting.Mode {
	case OnExistingRefuse, "":
		return "", domain.Errorf(domain.CodeConflict, "a connected login to %s (account %s) exists at this %s; remove it first or replace it", c.ServerID, s.Label(), c.Owner.Scope)
	case OnExistingKeep:
		return OutcomeKept, nil
	case OnExistingReplace:
		return OutcomeReplaced, nil
	case OnExistingReplaceWhenHint:
		if s.AccountHint == c.OnExisting.Hint {
			return OutcomeReplaced, nil
		}
		return OutcomeKept, nil
	}
	return "", domain.Errorf(domain.CodeInvalid, "onExisting %q is not refuse, keep, replace or replace_when_hint", c.OnExisting.Mode)
}

// checkAccount validates the account label a first-event command names, and that a login already on
// the stream is that account's; it returns the label as events carry it (empty for the default).
func checkAccount(what string, s State, account string) (string, error) {
	if err := connection.CheckAccountLabel(account); err != nil {
		return "", domain.Errorf(domain.CodeInvalid, "%s: %s", what, domain.ErrorMessage(err))
	}
	account = eventAccount(account)
	if s.Exists() && s.Account != account {
		return "", domain.Errorf(domain.CodeInvalid, "%s: the command is for account %s but the login is account %s", what, connection.NormalAccount(account), s.Label())
	}
	return account, nil
}

func checkOwner(what string, o Owner) error {
	if !o.Scope.Valid() {
		return domain.Errorf(domain.CodeInvalid, "%s: owner_scope %q is not organization, guild or agent", what, o.Scope)
	}
	if o.Scope == ScopePlatform {
		if o.ID != uuid.Nil {
			return domain.Errorf(domain.CodeInvalid, "%s: the platform owner has no id", what)
		}
		return nil
	}
	if o.ID == uuid.Nil {
		return domain.Errorf(domain.CodeInvalid, "%s: no owner_id", what)
	}
	return nil
}

func (c Connect) decide(s State) ([]domain.Event, error) {
	const what = "connect"
	if err := checkOwner(what, c.Owner); err != nil {
		return nil, err
	}
	if c.Owner.Scope == ScopePlatform {
		return nil, domain.Errorf(domain.CodeInvalid, "%s: a login cannot be connected at the platform; connect at an organization, a guild or an agent", what)
	}
	if c.ServerID == "" || c.At.IsZero() || c.Credential.IsZero() {
		return nil, domain.Errorf(domain.CodeInvalid, "%s: no connector, time or credential", what)
	}
	account, err := checkAccount(what, s, c.Account)
	if err != nil {
		return nil, err
	}
	if s.Exists() && (s.ServerID != c.ServerID || s.Owner != c.Owner) {
		return nil, domain.Errorf(domain.CodeInvalid, "%s: the command names another login", what)
	}
	out, err := c.Resolve(s)
	if err != nil {
		return nil, err
	}
	if out == OutcomeKept || out == OutcomeCurrent {
		return nil, nil
	}
	id := s.LoginID
	if id == uuid.Nil {
		if c.NewLoginID == uuid.Nil {
			return nil, domain.Errorf(domain.CodeInvalid, "%s: no login id", what)
		}
		id = c.NewLoginID
	}
	status := StatusConnected
	if len(c.NeedsSettings) > 0 {
		status = StatusPending
	}
	settings := c.Settings
	if settings == nil && s.Exists() {
		settings = s.Settings
	}
	return []domain.Event{Connected{
		LoginID: id, ServerID: c.ServerID, Owner: c.Owner, Account: account, Credential: c.Credential, AccountHint: c.AccountHint,
		Settings: settings, NeedsSettings: c.NeedsSettings, Status: status, Replaced: out == OutcomeReplaced, At: c.At.UTC(),
	}}, nil
}

// SaveSettings stores a checked settings document.
type SaveSettings struct {
	LoginID       uuid.UUID
	Settings      json.RawMessage
	AccountHint   string
	NeedsSettings []string
	At            time.Time
}

func (c SaveSettings) decide(s State) ([]domain.Event, error) {
	if !s.Exists() || s.LoginID != c.LoginID {
		return nil, domain.Errorf(domain.CodeNotFound, "no such login")
	}
	if s.Owner.Scope == ScopePlatform {
		return nil, domain.Errorf(domain.CodeInvalid, "a platform login's settings are not saved here")
	}
	if s.Credential.IsZero() {
		return nil, domain.Errorf(domain.CodeConflict, "the login is still waiting on its sign-in")
	}
	if c.At.IsZero() || len(c.Settings) == 0 {
		return nil, domain.Errorf(domain.CodeInvalid, "save settings: no settings or time")
	}
	status := StatusConnected
	if len(c.NeedsSettings) > 0 {
		status = StatusPending
	}
	return []domain.Event{SettingsSaved{LoginID: s.LoginID, ServerID: s.ServerID, Owner: s.Owner, Settings: c.Settings,
		AccountHint: c.AccountHint, NeedsSettings: c.NeedsSettings, Status: status, At: c.At.UTC()}}, nil
}

// RecordListing stores a listing; Decide computes its digest, its diff against the stored list and
// the default switches of the tools this owner never had (StartsOn gives them).
type RecordListing struct {
	LoginID  uuid.UUID
	Tools    []Tool
	StartsOn func(Tool) (on bool, rule string)
	At       time.Time
}

func (c RecordListing) decide(s State) ([]domain.Event, error) {
	if !s.Exists() || s.LoginID != c.LoginID {
		return nil, domain.Errorf(domain.CodeNotFound, "no such login")
	}
	if c.At.IsZero() || c.StartsOn == nil {
		return nil, domain.Errorf(domain.CodeInvalid, "listing: no time or default rule")
	}
	names := map[string]bool{}
	for _, t := range c.Tools {
		if t.Name == "" || names[t.Name] {
			return nil, domain.Errorf(domain.CodeInvalid, "listing: tool name %q is empty or repeated", t.Name)
		}
		names[t.Name] = true
	}
	ev := ToolsListed{LoginID: s.LoginID, ServerID: s.ServerID, Owner: s.Owner, Digest: Digest(c.Tools), Previous: s.Digest,
		Tools: c.Tools, Diff: Compare(s.Tools, c.Tools), At: c.At.UTC()}
	if ev.Tools == nil {
		ev.Tools = []Tool{}
	}
	for _, t := range c.Tools {
		if slices.Contains(s.Seen, t.Name) {
			continue
		}
		on, rule := c.StartsOn(t)
		ev.Defaults = append(ev.Defaults, Default{Tool: t.Name, On: on, Rule: rule})
	}
	return []domain.Event{ev}, nil
}

// Remove deletes the login.
type Remove struct {
	LoginID uuid.UUID
	Reason  string
	At      time.Time
}

func (c Remove) decide(s State) ([]domain.Event, error) {
	if !s.Exists() || (c.LoginID != uuid.Nil && s.LoginID != c.LoginID) {
		return nil, domain.Errorf(domain.CodeNotFound, "no such login")
	}
	if s.Owner.Scope == ScopePlatform {
		return nil, domain.Errorf(domain.CodeInvalid, "a platform login is not removed here")
	}
	if c.At.IsZero() {
		return nil, domain.Errorf(domain.CodeInvalid, "remove: no time")
	}
	return []domain.Event{Removed{LoginID: s.LoginID, ServerID: s.ServerID, Owner: s.Owner, Reason: c.Reason, At: c.At.UTC()}}, nil
}

// SetSwitch turns one tool On or Off at a scope.
type SetSwitch struct {
	Event SwitchSet
}

// SwitchState is a scope's switch stream folded: nothing the decision needs beyond validation.
type SwitchState struct{ Count int }

// EvolveSwitch folds one switch event.
func EvolveSwitch(s SwitchState, e domain.Event) SwitchState {
	if _, ok := e.(SwitchSet); ok {
		s.Count++
	}
	return s
}

// SwitchCommand is a command of a scope's switch stream: SetSwitch or ClearSwitches. The stream has
// one aggregate and one decider, DecideSwitch.
type SwitchCommand interface {
	decideSwitch(SwitchState) ([]domain.Event, error)
}

// DecideSwitch turns a switch stream's command into its events, or refuses it with a *domain.Error.
func DecideSwitch(s SwitchState, c SwitchCommand) ([]domain.Event, error) {
	if c == nil {
		return nil, domain.Errorf(domain.CodeInvalid, "no command")
	}
	return c.decideSwitch(s)
}

// decideSwitch validates a switch.
func (c SetSwitch) decideSwitch(SwitchState) ([]domain.Event, error) {
	ev := c.Event
	if err := checkOwner("switch", ev.Owner); err != nil {
		return nil, err
	}
	if ev.ServerID == "" || ev.Tool == "" || ev.At.IsZero() {
		return nil, domain.Errorf(domain.CodeInvalid, "switch: no connector, tool or time")
	}
	if ev.Default && (ev.Owner.Scope != ScopePlatform || !strings.HasPrefix(ev.ServerID, PluginServerPrefix)) {
		return nil, domain.Errorf(domain.CodeInvalid, "switch: a default is the instance admin's, for a plugin tool at the platform scope")
	}
	if ev.Ask && (!ev.On || ev.Default) {
		return nil, domain.Errorf(domain.CodeInvalid, "switch: Ask is a state of an On switch, and not the instance admin's default")
	}
	ev.At = ev.At.UTC()
	return []domain.Event{ev}, nil
}

// ClearSwitches deletes the switches of one connector at one scope (a login's removal).
type ClearSwitches struct {
	Event SwitchesCleared
}

// decideSwitch validates a ClearSwitches.
func (c ClearSwitches) decideSwitch(SwitchState) ([]domain.Event, error) {
	ev := c.Event
	if err := checkOwner("clear switches", ev.Owner); err != nil {
		return nil, err
	}
	if ev.ServerID == "" || ev.At.IsZero() {
		return nil, domain.Errorf(domain.CodeInvalid, "clear switches: no connector or time")
	}
	ev.At = ev.At.UTC()
	return []domain.Event{ev}, nil
}
