package jot

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// AuthorizeUpload is deploy_jot: claim the name (or confirm the caller holds it) and authorize one
// upload with the given settings. Patch applies to the jot's current settings (public, no CORS for a
// new jot).
type AuthorizeUpload struct {
	Name     string
	User     uuid.UUID
	UploadID string // lowercase hex sha256 of the token
	Patch    SettingsPatch
	TTL      time.Duration
	At       time.Time
}

func (c AuthorizeUpload) decide(s State) ([]domain.Event, error) {
	at, err := checkTime("deploy_jot", c.At)
	if err != nil {
		return nil, err
	}
	if err := ValidateName(c.Name); err != nil {
		return nil, err
	}
	switch {
	case c.User == uuid.Nil:
		return nil, domain.Errorf(domain.CodeInvalid, "deploy_jot: no user")
	case !ValidSHA256(c.UploadID):
		return nil, domain.Errorf(domain.CodeInvalid, "deploy_jot: the upload id must be a sha256 hex digest")
	case c.TTL <= 0:
		return nil, domain.Errorf(domain.CodeInvalid, "deploy_jot: the upload must have a positive lifetime")
	}
	if s.Holder(at) != uuid.Nil {
		if err := ownedBy(s, c.Name, c.User, at); err != nil {
			return nil, err
		}
	}
	if _, dup := s.Uploads[c.UploadID]; dup {
		return nil, domain.Errorf(domain.CodeConflict, "deploy_jot: this upload id is already authorized")
	}
	settings, err := c.Patch.Apply(s.Settings)
	if err != nil {
		return nil, err
	}
	return []domain.Event{UploadAuthorized{
		Name: c.Name, Creator: c.User, UploadID: c.UploadID, BaseGeneration: s.Generation,
		Settings: settings, ExpiresAt: at.Add(c.TTL), AuthorizedAt: at,
	}}, nil
}
