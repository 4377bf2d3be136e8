package login

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
)

// Scope is where a login or a switch is owned.
type Scope string

const (
	ScopePlatform     Scope = "platform"
	ScopeOrganization Scope = "organization"
	ScopeGuild        Scope = "guild"
	ScopeAgent        Scope = "agent"
)

// Scopes lists them from the least to the most specific: the order switches inherit in.
var Scopes = []Scope{ScopePlatform, ScopeOrganization, ScopeGuild, ScopeAgent}

// Valid reports whether s is a scope.
func (s Scope) Valid() bool {
	switch s {
	case ScopePlatform, ScopeOrganization, ScopeGuild, ScopeAgent:
		return true
	}
	return false
}

// Status of a login.
type Status string

const (
	StatusPending      Status = "pending"
	StatusConnected    Status = "connected"
	StatusDisconnected Status = "disconnected"
)

// StreamName is the stream of one account of one connector's login at one owner. The account
// labelled connection.DefaultAccount (every login made before an owner could hold several accounts)
// keeps the name every login had before; another label follows the owner's id after a dot (an id
// holds no dot, so no two accounts share a stream).
func StreamName(serverID string, o Owner, account string) string {
	name := "login-" + serverID + "-" + string(o.Scope) + "-" + o.ID.String()
	if account = connection.NormalAccount(account); account != connection.DefaultAccount {
		name += "." + account
	}
	return name
}

// Stream is the stream this login is folded from.
func (s State) Stream() string { return StreamName(s.ServerID, s.Owner, s.Account) }

// Label is the login's account label: connection.DefaultAccount for a login whose events name none.
func (s State) Label() string { return connection.NormalAccount(s.Account) }

// eventAccount is a label as events and State carry it: empty for the default account, so that its
// events read as every event written before labels existed.
func eventAccount(label string) string {
	if label == connection.DefaultAccount {
		return ""
	}
	return label
}

// SwitchStreamName is the stream of one scope's tool switches.
func SwitchStreamName(o Owner) string { return "toolswitches-" + string(o.Scope) + "-" + o.ID.String() }

// State is a login stream folded. LoginID is zero when there is no login (none yet, or removed).
type State struct {
	LoginID  uuid.UUID `json:"login_id"`
	ServerID string    `json:"server_id"`
	Owner    Owner     `json:"owner"`
	// Account is the login's account label, empty for the default account (see Label).
	Account       string          `json:"account,omitempty"`
	Status        Status          `json:"status"`
	Credential    domain.Sealed   `json:"credential"`
	AccountHint   string          `json:"account_hint,omitempty"`
	Settings      json.RawMessage `json:"settings,omitempty"`
	NeedsSettings []string        `json:"needs_settings,omitempty"`
	CreatedAt     time.Time       `json:"created_at"`
	UpdatedAt     time.Time       `json:"updated_at"`
	RotatedAt     time.Time       `json:"rotated_at,omitzero"`
	Tools         []Tool          `json:"tools,omitempty"`
	Digest        string          `json:"digest,omitempty"`
	ListedAt      time.Time       `json:"listed_at,omitzero"`
	// OAuthPending is the sealed verifier of an open OAuth sign-in; OAuthNonce finds it at the callback.
	OAuthPending domain.Sealed `json:"oauth_pending,omitzero"`
	OAuthNonce   string        `json:"oauth_nonce,omitempty"`
	// DefaultChosenAt is when someone last made this account its owner's default (DefaultOf).
	DefaultChosenAt time.Time `json:"default_chosen_at,omitzero"`
	// Seen are the tool names this owner's switches were written for (a later listing leaves them).
	Seen []string `json:"seen,omitempty"`
}

// Initial is the state of an empty stream.
func Initial() State { return State{} }

// Exists reports whether a login is there.
func (s State) Exists() bool { return s.LoginID != uuid.Nil }

// Evolve folds one event.
func Evolve(s State, e domain.Event) State {
	if next, ok := evolveOAuth(s, e); ok {
		return next
	}
	switch ev := e.(type) {
	case Connected:
		if s.LoginID != ev.LoginID {
			seen := s.Seen
			s = State{LoginID: ev.LoginID, CreatedAt: ev.At, Seen: seen}
		}
		if ev.Replaced {
			s.RotatedAt = ev.At
		}
		s.ServerID, s.Owner, s.Account, s.Credential, s.AccountHint = ev.ServerID, ev.Owner, ev.Account, ev.Credential, ev.AccountHint
		if ev.Settings != nil {
			s.Settings = ev.Settings
		}
		s.NeedsSettings, s.Status, s.UpdatedAt = ev.NeedsSettings, ev.Status, ev.At
		s.OAuthPending, s.OAuthNonce = domain.Sealed{}, ""
	case SettingsSaved:
		s.Settings, s.NeedsSettings, s.Status, s.UpdatedAt = ev.Settings, ev.NeedsSettings, ev.Status, ev.At
		if ev.AccountHint != "" {
			s.AccountHint = ev.AccountHint
		}
	case ToolsListed:
		s.Tools, s.Digest, s.ListedAt = ev.Tools, ev.Digest, ev.At
		for _, d := range ev.Defaults {
			s.Seen = append(s.Seen, d.Tool)
		}
	case DefaultChosen:
		s.DefaultChosenAt = ev.At
	case Removed:
		// The login's default switches went with it (SwitchesCleared), so a later login of this owner
		// writes its tools' defaults afresh; a default never overwrites a switch that is there.
		s = State{}
	}
	return s
}

// Digest is the digest of a tool list: SHA-256 of the list sorted by name, as JSON.
func Digest(tools []Tool) string {
	sorted := append([]Tool(nil), tools...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	b, _ := json.Marshal(sorted)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// DescriptionSHA is the digest of a tool's description, kept beside a switch turned On.
func DescriptionSHA(description string) string {
	sum := sha256.Sum256([]byte(description))
	return hex.EncodeToString(sum[:8])
}

// SchemaSHA is the digest of what a tool's description does not say of it: its input schema, as
// canonical JSON (members sorted, compact; an empty schema is {"type":"object"}, as the read model
// stores it), and its annotations (the readOnly and destructive hints, an absent one left out). It is
// kept beside a switch turned On, as DescriptionSHA is: a later listing that changes either flags the
// tool (drift).
func SchemaSHA(inputSchema json.RawMessage, readOnly, destructive *bool) string {
	schema := schemaOf(inputSchema)
	hints, _ := json.Marshal(struct {
		ReadOnly    *bool `json:"readOnlyHint,omitempty"`
		Destructive *bool `json:"destructiveHint,omitempty"`
	}{readOnly, destructive})
	h := sha256.New()
	h.Write(schema)
	h.Write([]byte{0})
	h.Write(hints)
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// schemaOf is an input schema as canonical JSON; an empty one is {"type":"object"}.
func schemaOf(inputSchema json.RawMessage) []byte {
	if b := canonicalJSON(inputSchema); b != nil {
		return b
	}
	return []byte(`{"type":"object"}`)
}

// canonicalJSON re-encodes raw with its members sorted and no white space (numbers kept as written);
// nil when raw is empty or not JSON.
func canonicalJSON(raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

func sameHint(a, b *bool) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// Compare is the diff of a listing against the previous one.
func Compare(prev, next []Tool) Diff {
	old := map[string]Tool{}
	for _, t := range prev {
		old[t.Name] = t
	}
	var d Diff
	seen := map[string]bool{}
	for _, t := range next {
		seen[t.Name] = true
		o, ok := old[t.Name]
		switch {
		case !ok:
			d.Added = append(d.Added, t.Name)
		case o.Description != t.Description:
			d.DescriptionChanged = append(d.DescriptionChanged, t.Name)
		case string(o.InputSchema) != string(t.InputSchema) && !bytes.Equal(schemaOf(o.InputSchema), schemaOf(t.InputSchema)):
			d.SchemaChanged = append(d.SchemaChanged, t.Name)
		case !sameHint(o.ReadOnlyHint, t.ReadOnlyHint) || !sameHint(o.DestructiveHint, t.DestructiveHint):
			d.AnnotationsChanged = append(d.AnnotationsChanged, t.Name)
		}
	}
	for _, t := range prev {
		if !seen[t.Name] {
			d.Removed = append(d.Removed, t.Name)
		}
	}
	sort.Strings(d.Added)
	sort.Strings(d.Removed)
	sort.Strings(d.DescriptionChanged)
	sort.Strings(d.SchemaChanged)
	sort.Strings(d.AnnotationsChanged)
	return d
}
