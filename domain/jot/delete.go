package jot

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Delete takes a jot down and releases its name. Only its creator may.
type Delete struct {
	Name string
	User uuid.UUID
	At   time.Time
}

func (c Delete) decide(s State) ([]domain.Event, error) {
	at, err := checkTime("delete_jot", c.At)
	if err != nil {
		return nil, err
	}
	if err := ownedBy(s, c.Name, c.User, at); err != nil {
		return nil, err
	}
	return []domain.Event{Deleted{Name: c.Name, Creator: s.Creator, Files: s.Files, DeletedAt: at}}, nil
}
