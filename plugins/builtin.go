package plugins

import (
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"time"
	_ "time/tzdata" // utils_time must know every IANA zone even on hosts without /usr/share/zoneinfo

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// builtinFS holds the plugin folders that ship with the server. Adding a built-in plugin means adding
// its folder here.
//
//go:embed github newrelic utils
//go:embed atlassian-confluence
//go:embed atlassian-jira
//go:embed linear
//go:embed gitlab
//go:embed sentry
//go:embed pagerduty
//go:embed datadog
//go:embed notion
//go:embed slack
//go:embed brave-search
//go:embed google-gmail
//go:embed google-drive
//go:embed google-calendar
//go:embed hubspot
var builtinFS embed.FS

// builtinHandlers returns the Go handlers of the built-in plugins, by tool name. It returns a fresh map
// each time so Load can add the caller's handlers to it.
func builtinHandlers() map[string]Handler {
	return map[string]Handler{
		"utils_echo": utilsEcho,
		"utils_uuid": utilsUUID,
		"utils_hash": utilsHash,
		"utils_time": utilsTime,

		// github: handlers_github.go (a file path spans several URL segments)
		"github_get_file_contents": githubGetFileContents,

		// slack: handlers_slack.go (Slack fails calls with HTTP 200 and "ok": false)
		"slack_auth_test":                slackTool("slack_auth_test"),
		"slack_list_conversations":       slackTool("slack_list_conversations"),
		"slack_get_conversation_info":    slackTool("slack_get_conversation_info"),
		"slack_get_conversation_history": slackTool("slack_get_conversation_history"),
		"slack_get_thread_replies":       slackTool("slack_get_thread_replies"),
		"slack_join_conversation":        slackTool("slack_join_conversation"),
		"slack_post_message":             slackTool("slack_post_message"),
		"slack_update_message":           slackTool("slack_update_message"),
		"slack_delete_message":           slackTool("slack_delete_message"),
		"slack_add_reaction":             slackTool("slack_add_reaction"),
		"slack_list_users":               slackTool("slack_list_users"),
		"slack_get_user_info":            slackTool("slack_get_user_info"),
		"slack_lookup_user_by_email":     slackTool("slack_lookup_user_by_email"),
		"slack_search_messages":          slackTool("slack_search_messages"),
		"slack_list_files":               slackTool("slack_list_files"),
		"slack_list_pins":                slackTool("slack_list_pins"),
		"slack_add_pin":                  slackTool("slack_add_pin"),

		// google-gmail: handlers_google_gmail.go (outgoing mail is one base64url RFC 2822 "raw" field)
		"google_gmail_send_message": gmailSendMessage,
		"google_gmail_create_draft": gmailCreateDraft,
		"google_gmail_read_message": gmailReadMessage,
	}
}

func decodeArgs(tool string, args json.RawMessage, v any) error {
	if err := json.Unmarshal(args, v); err != nil {
		return &domain.Error{Code: domain.CodeInvalid, Message: fmt.Sprintf("%s: bad arguments: %v", tool, err), Err: err}
	}
	return nil
}

func utilsEcho(_ context.Context, _ Context, args json.RawMessage) (any, error) {
	var in struct {
		Message string `json:"message"`
	}
	if err := decodeArgs("utils_echo", args, &in); err != nil {
		return nil, err
	}
	return map[string]string{"message": in.Message}, nil
}

func utilsUUID(_ context.Context, _ Context, args json.RawMessage) (any, error) {
	var in struct {
		Version int `json:"version"`
		Count   int `json:"count"`
	}
	if err := decodeArgs("utils_uuid", args, &in); err != nil {
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

func utilsHash(_ context.Context, _ Context, args json.RawMessage) (any, error) {
	var in struct {
		Text      string `json:"text"`
		Algorithm string `json:"algorithm"`
		Encoding  string `json:"encoding"`
	}
	if err := decodeArgs("utils_hash", args, &in); err != nil {
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

func utilsTime(_ context.Context, _ Context, args json.RawMessage) (any, error) {
	var in struct {
		Timezone string `json:"timezone"`
	}
	if err := decodeArgs("utils_time", args, &in); err != nil {
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
