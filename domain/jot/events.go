package jot

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Event type names. They are written into the log and never change once an event has been stored.
const (
	TypeUploadAuthorized = "jot.upload_authorized"
	TypeDeployed         = "jot.deployed"
	TypeUpdated          = "jot.updated"
	TypeAccessChanged    = "jot.access_changed"
	TypeDeleted          = "jot.deleted"
	TypeSweepStarted     = "jot.blob_sweep_started"
)

// File is one entry of a jot's manifest. The body is stored elsewhere under its SHA256.
type File struct {
	// Path is relative to the jot's root, slash-separated, without "." or ".." components.
	Path string `json:"path"`
	Size int64  `json:"size"`
	// SHA256 is the lowercase hex digest of the body; it is also the blob's key and the ETag.
	SHA256      string `json:"sha256"`
	ContentType string `json:"content_type"`
}

// UploadAuthorized records a deploy_jot call: a single-use upload, identified by the sha256 of its
// token (the token itself is never stored), valid until ExpiresAt. The first one claims the name.
type UploadAuthorized struct {
	Name    string    `json:"name"`
	Creator uuid.UUID `json:"creator"`
	// UploadID is the lowercase hex sha256 of the upload token.
	UploadID string `json:"upload_id"`
	// BaseGeneration is the jot's generation when the upload was authorized; the upload is refused if
	// another deploy or a delete has moved it since.
	BaseGeneration int64     `json:"base_generation"`
	Settings       Settings  `json:"settings"`
	ExpiresAt      time.Time `json:"expires_at"`
	AuthorizedAt   time.Time `json:"authorized_at"`
}

// Deployed records an upload switched in: from this event on the jot serves exactly Files.
type Deployed struct {
	Name       string    `json:"name"`
	Creator    uuid.UUID `json:"creator"`
	UploadID   string    `json:"upload_id"`
	Generation int64     `json:"generation"`
	Files      []File    `json:"files"`
	Settings   Settings  `json:"settings"`
	DeployedAt time.Time `json:"deployed_at"`
}

// Updated records files replaced or added in a live jot. Files is the whole manifest afterwards.
type Updated struct {
	Name      string    `json:"name"`
	Changed   []string  `json:"changed"`
	Files     []File    `json:"files"`
	UpdatedAt time.Time `json:"updated_at"`
}

// AccessChanged records new settings for a live jot. Files is the (unchanged) manifest.
type AccessChanged struct {
	Name      string    `json:"name"`
	Settings  Settings  `json:"settings"`
	Files     []File    `json:"files"`
	ChangedAt time.Time `json:"changed_at"`
}

// Deleted records a jot taken down by its creator; the name is free again. Files is the manifest the
// jot held.
type Deleted struct {
	Name      string    `json:"name"`
	Creator   uuid.UUID `json:"creator"`
	Files     []File    `json:"files"`
	DeletedAt time.Time `json:"deleted_at"`
}

// SweepStarted marks the log where a sweep of unreferenced blobs began (stream SweepStream). The
// sweep waits until the jots read model has applied it, so every deploy recorded before the sweep
// began counts as a reference; it changes no jot.
type SweepStarted struct {
	StartedAt time.Time `json:"started_at"`
}

// SweepStream is the stream of SweepStarted markers; no jot name can produce it.
const SweepStream = "jot_blob_sweeps"

func (UploadAuthorized) EventType() string { return TypeUploadAuthorized }
func (Deployed) EventType() string         { return TypeDeployed }
func (Updated) EventType() string          { return TypeUpdated }
func (AccessChanged) EventType() string    { return TypeAccessChanged }
func (Deleted) EventType() string          { return TypeDeleted }
func (SweepStarted) EventType() string     { return TypeSweepStarted }

// Events returns a zero value of every event type, for building a codec:
// eventstore.NewJSONCodec(jot.Events()...).
func Events() []domain.Event {
	return []domain.Event{UploadAuthorized{}, Deployed{}, Updated{}, AccessChanged{}, Deleted{}, SweepStarted{}}
}

// StreamName is the stream of the jot called name.
func StreamName(name string) string { return "jot-" + name }
