package jot

import (
	"time"

	"github.com/workbench/workbench/domain"
)

// Deploy switches an uploaded archive in: the jot serves exactly Files from then on. The upload
// authorizes it: it must be pending, unexpired, and authorized at the jot's current generation.
type Deploy struct {
	Name     string
	UploadID string
	Files    []File
	MaxFiles int
	MaxBytes int64
	At       time.Time
}

func (c Deploy) decide(s State) ([]domain.Event, error) {
	at, err := checkTime("deploy", c.At)
	if err != nil {
		return nil, err
	}
	up, ok := s.Uploads[c.UploadID]
	switch {
	case !ok:
		return nil, domain.Errorf(domain.CodeNotFound, "this upload URL is not valid: it was never issued, has already been used, or a later deploy or delete of jot %q replaced it; call deploy_jot for a new one", c.Name)
	case !at.Before(up.ExpiresAt):
		return nil, domain.Errorf(domain.CodeForbidden, "this upload URL expired at %s; call deploy_jot for a new one", up.ExpiresAt.Format(time.RFC3339))
	case up.BaseGeneration != s.Generation:
		return nil, domain.Errorf(domain.CodeConflict, "another deploy of jot %q landed after this upload URL was issued; call deploy_jot again", c.Name)
	}
	if len(c.Files) == 0 {
		return nil, domain.Errorf(domain.CodeInvalid, "the archive holds no files")
	}
	if err := validateManifest(c.Files, c.MaxFiles, c.MaxBytes); err != nil {
		return nil, err
	}
	return []domain.Event{Deployed{
		Name: c.Name, Creator: s.Creator, UploadID: c.UploadID, Generation: s.Generation + 1,
		Files: c.Files, Settings: up.Settings, DeployedAt: at,
	}}, nil
}
