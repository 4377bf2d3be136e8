package utils

import (
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"time"
	_ "time/tzdata" // utils_time must know every IANA zone even on hosts without /usr/share/zoneinfo

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/plugins"
)

// handlers are the utils plugin's Go handlers, by tool name: every utils_* tool.
func handlers() map[string]plugins.Handler {
	return map[string]plugins.Handler{
		"utils_echo": utilsEcho,
		"utils_uuid": utilsUUID,
		"utils_hash": utilsHash,
		"utils_time": utilsTime,
	}
}

func utilsEcho(_ context.Context, _ plugins.Context, args json.RawMessage) (any, error) {
	var in struct {
		Message string `json:"message"`
	}
	if err := plugins.DecodeArgs("utils_echo", args, &in); err != nil {
		return nil, err
	}
	return map[string]string{"message": in.Message}, nil
}

func utilsUUID(_ context.Context, _ plugins.Context, args json.RawMessage) (any, error) {
	var in struct {
		Version int `json:"version"`
		Count   int `json:"count"`
	}
	if err := plugins.DecodeArgs("utils_uuid", args, &in); err != nil {
		return nil, err
	}
	ids := make([]string, 0, in.Count)
	for range in.Count {
		var id uuid.UUID
		var err error
		if in.Version == 7 {
			id, err = uuid.NewV7()
		} else {
			id, err = uuid.NewRandom()
		}
		if err != nil {
			return nil, fmt.Errorf("generate uuid: %w", err)
		}
		ids = append(ids, id.String())
	}
	return map[string]any{"uuids": ids}, nil
}

func utilsHash(_ context.Context, _ plugins.Context, args json.RawMessage) (any, error) {
	var in struct {
		Text      string `json:"text"`
		Algorithm string `json:"algorithm"`
		Encoding  string `json:"encoding"`
	}
	if err := plugins.DecodeArgs("utils_hash", args, &in); err != nil {
		return nil, err
	}
	var h hash.Hash
	switch in.Algorithm {
	case "sha256":
		h = sha256.New()
	case "sha1":
		h = sha1.New()
	case "md5":
		h = md5.New()
	default:
		return nil, &domain.Error{Code: domain.CodeInvalid, Message: fmt.Sprintf("utils_hash: unknown algorithm %q", in.Algorithm)}
	}
	h.Write([]byte(in.Text))
	sum := h.Sum(nil)
	digest := hex.EncodeToString(sum)
	if in.Encoding == "base64" {
		digest = base64.StdEncoding.EncodeToString(sum)
	}
	return map[string]string{"algorithm": in.Algorithm, "encoding": in.Encoding, "digest": digest}, nil
}

func utilsTime(_ context.Context, _ plugins.Context, args json.RawMessage) (any, error) {
	var in struct {
		Timezone string `json:"timezone"`
	}
	if err := plugins.DecodeArgs("utils_time", args, &in); err != nil {
		return nil, err
	}
	loc, err := time.LoadLocation(in.Timezone)
	if err != nil || in.Timezone == "" || in.Timezone == "Local" {
		return nil, &domain.Error{Code: domain.CodeInvalid, Message: fmt.Sprintf("utils_time: unknown IANA time zone %q", in.Timezone)}
	}
	now := time.Now().In(loc)
	name, offset := now.Zone()
	return map[string]any{
		"timezone":       in.Timezone,
		"time":           now.Format(time.RFC3339),
		"unix":           now.Unix(),
		"abbreviation":   name,
		"offset_seconds": offset,
		"weekday":        now.Weekday().String(),
	}, nil
}
