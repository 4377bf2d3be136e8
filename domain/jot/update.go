package jot

import (
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Update is update_jot: put files into a live jot (replacing those at the same paths, keeping the
// rest) and/or change its settings, with no upload.
type Update struct {
	Name     string
	User     uuid.UUID
	Put      []File
	Patch    SettingsPatch
	MaxFiles int
	MaxBytes int64
	At       time.Time
}

func (c Update) decide(s State) ([]domain.Event, error) {
	at, err := checkTime("update_jot", c.At)
	if err != nil {
		return nil, err
	}
	if len(c.Put) == 0 && c.Patch.IsZero() {
		return nil, domain.Errorf(domain.CodeInvalid, "update_jot needs a file to put, or a change of access, password or cors")
	}
	if err := ownedBy(s, c.Name, c.User, at); err != nil {
		return nil, err
	}
	if !s.Live {
		return nil, domain.Errorf(domain.CodeConflict, "jot %q has not been deployed yet: upload an archive to the URL deploy_jot returned first", c.Name)
	}
	var events []domain.Event
	files := s.Files
	if len(c.Put) > 0 {
		byPath := make(map[string]File, len(s.Files)+len(c.Put))
		for _, f := range s.Files {
			byPath[f.Path] = f
		}
		changed := make([]string, 0, len(c.Put))
		for _, f := range c.Put {
			if _, dup := slices.BinarySearch(changed, f.Path); dup {
				return nil, domain.Errorf(domain.CodeInvalid, "update_jot: %q is given twice", f.Path)
			}
			byPath[f.Path] = f
			i, _ := slices.BinarySearch(changed, f.Path)
			changed = slices.Insert(changed, i, f.Path)
		}
		files = make([]File, 0, len(byPath))
		for _, f := range byPath {
			files = append(files, f)
		}
		slices.SortFunc(files, func(a, b File) int { return compareStrings(a.Path, b.Path) })
		if err := validateManifest(files, c.MaxFiles, c.MaxBytes); err != nil {
			return nil, err
		}
		events = append(events, Updated{Name: c.Name, Changed: changed, Files: files, UpdatedAt: at})
	}
	if !c.Patch.IsZero() {
		settings, err := c.Patch.Apply(s.Settings)
		if err != nil {
			return nil, err
		}
		if settings != s.Settings {
			events = append(events, AccessChanged{Name: c.Name, Settings: settings, Files: files, ChangedAt: at})
		}
	}
	return events, nil
}
