package jot

import (
	"maps"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Upload is an authorized upload that has not been used yet.
type Upload struct {
	BaseGeneration int64
	Settings       Settings
	ExpiresAt      time.Time
}

// State is a jot as its stream tells it.
type State struct {
	Name string
	// Creator holds the name; uuid.Nil when nobody does (never claimed, or deleted).
	Creator uuid.UUID
	// Live is true from the first deploy until a delete.
	Live bool
	// Generation counts deploys and deletes; an upload authorized at another generation is stale.
	Generation int64
	Settings   Settings
	// Files is the manifest, sorted by path.
	Files []File
	// Uploads are the pending uploads by upload id (expired ones are dropped as later events pass
	// their expiry).
	Uploads map[string]Upload
}

// Initial is the state of a name with no events.
func Initial() State { return State{} }

// File returns the manifest entry for path.
func (s State) File(path string) (File, bool) {
	i, ok := slices.BinarySearchFunc(s.Files, path, func(f File, p string) int { return compareStrings(f.Path, p) })
	if !ok {
		return File{}, false
	}
	return s.Files[i], true
}

// Holder is who holds the name at time at: the creator of a live jot, or of a claim with an upload
// still pending at at; uuid.Nil otherwise. A claim never used lapses when its last upload expires: the
// expiry is derived from the log (the upload's ExpiresAt against the command's time), never from a
// timer, so it holds after a restart, on every replica, and on a rebuilt state alike.
func (s State) Holder(at time.Time) uuid.UUID {
	if s.Creator == uuid.Nil || s.Live {
		return s.Creator
	}
	for _, u := range s.Uploads {
		if at.Before(u.ExpiresAt) {
			return s.Creator
		}
	}
	return uuid.Nil
}

// TotalBytes is the sum of the manifest's sizes.
func (s State) TotalBytes() int64 {
	var n int64
	for _, f := range s.Files {
		n += f.Size
	}
	return n
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Evolve folds one event into the state. It never modifies the maps or slices of s: it copies them.
func Evolve(s State, ev domain.Event) State {
	switch e := ev.(type) {
	case UploadAuthorized:
		if !s.Live && s.Creator != e.Creator {
			// Another user takes a name whose claim lapsed: nothing of the old claim carries over.
			s = State{Name: e.Name, Generation: s.Generation}
		}
		s.Name = e.Name
		s.Creator = e.Creator
		s.Uploads = pruned(s.Uploads, e.AuthorizedAt)
		s.Uploads[e.UploadID] = Upload{BaseGeneration: e.BaseGeneration, Settings: e.Settings, ExpiresAt: e.ExpiresAt}
	case Deployed:
		s.Name, s.Creator, s.Live = e.Name, e.Creator, true
		s.Generation = e.Generation
		s.Settings = e.Settings
		s.Files = slices.Clone(e.Files)
		// The upload is used up. The others stay, now stale (authorized at an older generation), so
		// that their uploads are refused as having lost to this deploy, until they expire.
		s.Uploads = pruned(s.Uploads, e.DeployedAt)
		delete(s.Uploads, e.UploadID)
	case Updated:
		s.Files = slices.Clone(e.Files)
	case AccessChanged:
		s.Settings = e.Settings
		s.Files = slices.Clone(e.Files)
	case Deleted:
		return State{Name: e.Name, Generation: s.Generation + 1}
	}
	return s
}

// pruned copies uploads without those expired at now.
func pruned(uploads map[string]Upload, now time.Time) map[string]Upload {
	out := make(map[string]Upload, len(uploads)+1)
	for id, u := range maps.All(uploads) {
		if now.Before(u.ExpiresAt) {
			out[id] = u
		}
	}
	return out
}
