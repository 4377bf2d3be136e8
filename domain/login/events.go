package login

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Event type names, never changed once stored.
const (
	TypeConnected       = "login.connected"
	TypeSettingsSaved   = "login.settings_saved"
	TypeToolsListed     = "login.tools_listed"
	TypeRemoved         = "login.removed"
	TypeSwitchSet       = "toolswitch.set"
	TypeSwitchesCleared = "toolswitch.cleared"
)

// Owner is who a login or a switch belongs to.
type Owner struct {
	Scope Scope     `json:"scope"`
	ID    uuid.UUID `json:"id"` // uuid.Nil for the platform
}

// Connected stores a login's sealed credentials: a new login, a retry of a pending or disconnected
// one, or a replacement (Replaced) of a connected one. Status is pending while a required setting is
// missing (NeedsSettings), else connected.
type Connected struct {
	LoginID       uuid.UUID       `json:"login_id"`
	ServerID      string          `json:"server_id"`
	Owner         Owner           `json:"owner"`
	Account       string          `json:"account,omitempty"` // empty for the default account
	Credential    domain.Sealed   `json:"credential"`
	AccountHint   string          `json:"account_hint,omitempty"`
	Settings      json.RawMessage `json:"settings,omitempty"`
	NeedsSettings []string        `json:"needs_settings,omitempty"`
	Status        Status          `json:"status"`
	Replaced      bool            `json:"replaced,omitempty"`
	At            time.Time       `json:"at"`
}

// SettingsSaved replaces a login's settings document; the first complete one connects the login.
type SettingsSaved struct {
	LoginID       uuid.UUID       `json:"login_id"`
	ServerID      string          `json:"server_id"`
	Owner         Owner           `json:"owner"`
	Settings      json.RawMessage `json:"settings"`
	AccountHint   string          `json:"account_hint,omitempty"`
	NeedsSettings []string        `json:"needs_settings,omitempty"`
	Status        Status          `json:"status"`
	At            time.Time       `json:"at"`
}

// Tool is one listed tool as stored: Name is the prefixed name the model sees, Remote the name the
// endpoint knows; hints are nil when the listing gave none.
type Tool struct {
	Name            string          `json:"name"`
	Remote          string          `json:"remote"`
	Description     string          `json:"description"`
	InputSchema     json.RawMessage `json:"input_schema,omitempty"`
	ReadOnlyHint    *bool           `json:"read_only_hint,omitempty"`
	DestructiveHint *bool           `json:"destructive_hint,omitempty"`
	// TaskSupport is the tool's listed execution.taskSupport (MCP 2025-11-25); absent in listings
	// recorded before it was kept, and when the listing gave none.
	TaskSupport string `json:"task_support,omitempty"`
	// OutputSchema is the tool's listed outputSchema; absent in listings recorded before it was kept,
	// and when the listing gave none. It is not part of SchemaSHA, so a listing recorded before it was
	// kept does not read as changed.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
}

// Diff is what changed since the previous listing (drift).
type Diff struct {
	Added              []string `json:"added,omitempty"`
	Removed            []string `json:"removed,omitempty"`
	DescriptionChanged []string `json:"description_changed,omitempty"`
	SchemaChanged      []string `json:"schema_changed,omitempty"`
	// AnnotationsChanged: the hints changed, description and schema did not (listings before this
	// field existed did not look).
	AnnotationsChanged []string `json:"annotations_changed,omitempty"`
}

// Empty reports whether nothing changed.
func (d Diff) Empty() bool {
	return len(d.Added)+len(d.Removed)+len(d.DescriptionChanged)+len(d.SchemaChanged)+len(d.AnnotationsChanged) == 0
}

// Default is the switch a listing writes at the login owner's scope for a tool seen for the first
// time, with the rule that decided it.
type Default struct {
	Tool string `json:"tool"`
	On   bool   `json:"on"`
	Rule string `json:"rule"`
}

// ToolsListed is one listing of a login's tools.
type ToolsListed struct {
	LoginID  uuid.UUID `json:"login_id"`
	ServerID string    `json:"server_id"`
	Owner    Owner     `json:"owner"`
	Digest   string    `json:"digest"`
	Previous string    `json:"previous_digest,omitempty"`
	Tools    []Tool    `json:"tools"`
	Diff     Diff      `json:"diff"`
	Defaults []Default `json:"defaults,omitempty"`
	At       time.Time `json:"at"`
}

// Removed deletes a login. The service first clears the switches of the login's connector at the
// login owner's scope (SwitchesCleared: the bindings that point at the login) and shreds the login's
// vault subject; switches other scopes hold stay with those scopes.
type Removed struct {
	LoginID  uuid.UUID `json:"login_id"`
	ServerID string    `json:"server_id"`
	Owner    Owner     `json:"owner"`
	Reason   string    `json:"reason"`
	At       time.Time `json:"at"`
}

// SwitchSet turns one tool On or Off at one scope. DescriptionSHA is the tool's description digest
// when it was turned On, SchemaSHA its schema and annotations digest (SchemaSHA): a later listing
// that changes either flags the tool (drift). An event without SchemaSHA (written before it existed)
// accepted the schema listed when it was set: the read model takes that listing's digest.
type SwitchSet struct {
	Owner          Owner  `json:"owner"`
	ServerID       string `json:"server_id"`
	Tool           string `json:"tool"`
	On             bool   `json:"on"`
	DescriptionSHA string `json:"description_sha,omitempty"`
	SchemaSHA      string `json:"schema_sha,omitempty"`
	By             string `json:"by,omitempty"`
	// Default: the instance admin's default for a plugin tool at the platform scope rather than a
	// switch: any scope below may switch the tool either way (the first rule of what starts Off).
	// Only at the platform scope; absent in every switch set before defaults existed.
	Default bool `json:"default,omitempty"`
	// Ask: the tool is On but every call waits for a person's approval (the third state of a switch;
	// On is true). A lower scope may tighten a higher scope's Ask to Off, never loosen it to On.
	// Absent in every switch set before approvals existed.
	Ask bool      `json:"ask,omitempty"`
	At  time.Time `json:"at"`
}

// SwitchesCleared deletes the switches of one connector at one scope: every one (a server's
// removal, and a login's removal in logs written before DefaultsOnly), or, with DefaultsOnly, the
// defaults its listings wrote (a login's removal: the switches someone set outlive the login).
type SwitchesCleared struct {
	Owner        Owner     `json:"owner"`
	ServerID     string    `json:"server_id"`
	LoginID      uuid.UUID `json:"login_id"`
	Reason       string    `json:"reason"`
	DefaultsOnly bool      `json:"defaults_only,omitempty"`
	At           time.Time `json:"at"`
}

func (SwitchesCleared) EventType() string { return TypeSwitchesCleared }

func (Connected) EventType() string     { return TypeConnected }
func (SettingsSaved) EventType() string { return TypeSettingsSaved }
func (ToolsListed) EventType() string   { return TypeToolsListed }
func (Removed) EventType() string       { return TypeRemoved }
func (SwitchSet) EventType() string     { return TypeSwitchSet }

// Events lists the login stream's event types, for a codec.
func Events() []domain.Event {
	return []domain.Event{Connected{}, SettingsSaved{}, ToolsListed{}, Removed{}, OAuthStarted{}, Disconnected{}, DefaultChosen{}}
}

// SwitchEvents lists the switch stream's event types.
func SwitchEvents() []domain.Event {
	return []domain.Event{SwitchSet{}, SwitchesCleared{}, StartPreferenceSet{}}
}
