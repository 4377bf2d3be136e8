// The todoist connector's adapter (connectors/todoist): an adapter-only connector (no MCP endpoint)
// that calls Todoist's REST API v2 (https://developer.todoist.com/rest/v2/) and its Sync API v9 for
// the account hint, with the login's API token as a Bearer token.

package todoist

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/workbench/workbench/plugins/connector"
)

// DefaultBaseURL is Todoist's API host.
const DefaultBaseURL = "https://api.todoist.com"

// maxBody bounds a response read from Todoist.
const maxBody = 1 << 20

// Adapter implements connector.Validator, Looker and Caller; listing falls back to the manifest.
type Adapter struct {
	BaseURL string
}

// New returns the adapter calling base (DefaultBaseURL when empty).
func New(base string) *Adapter {
	if base == "" {
		base = DefaultBaseURL
	}
	return &Adapter{BaseURL: strings.TrimRight(base, "/")}
}

// Slug implements connector.Adapter.
func (*Adapter) Slug() string { return "todoist" }

var (
	_ connector.Validator = (*Adapter)(nil)
	_ connector.Looker    = (*Adapter)(nil)
	_ connector.Caller    = (*Adapter)(nil)
)

func (a *Adapter) do(ctx context.Context, ac connector.Context, creds map[string]string, method, path string, form url.Values, body any) (json.RawMessage, error) {
	var rd io.Reader
	ctype := ""
	switch {
	case form != nil:
		rd, ctype = strings.NewReader(form.Encode()), "application/x-www-form-urlencoded"
	case body != nil:
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd, ctype = bytes.NewReader(b), "application/json"
	}
	req, err := http.NewRequestWithContext(ctx, method, a.BaseURL+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+creds["api_token"])
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	b, err := ac.Send(req, "Todoist", maxBody)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return json.RawMessage("null"), nil
	}
	return b, nil
}

// Validate reads the user through the Sync API and answers its email as the account hint.
func (a *Adapter) Validate(ctx context.Context, creds map[string]string, ac connector.Context) (string, error) {
	raw, err := a.do(ctx, ac, creds, http.MethodPost, "/sync/v9/sync", url.Values{"sync_token": {"*"}, "resource_types": {`["user"]`}}, nil)
	if err != nil {
		return "", err
	}
	var r struct {
		User struct {
			Email string `json:"email"`
		} `json:"user"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return "", &connector.Error{Message: "Todoist's user answer is not JSON"}
	}
	return r.User.Email, nil
}

// Lookup fills the project box: projects whose name holds q.
func (a *Adapter) Lookup(ctx context.Context, property, q string, creds map[string]string, ac connector.Context) ([]connector.Option, error) {
	if property != "project_id" {
		return nil, &connector.Error{Status: http.StatusNotFound, Message: "no lookup for " + property}
	}
	raw, err := a.do(ctx, ac, creds, http.MethodGet, "/rest/v2/projects", nil, nil)
	if err != nil {
		return nil, err
	}
	var projects []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	if err := json.Unmarshal(raw, &projects); err != nil {
		return nil, &connector.Error{Message: "Todoist's projects answer is not JSON"}
	}
	out := []connector.Option{}
	for _, p := range projects {
		if q == "" || strings.Contains(strings.ToLower(p.Name), strings.ToLower(q)) {
			out = append(out, connector.Option{Value: p.ID, Label: p.Name})
		}
	}
	return out, nil
}

// Call runs list_tasks or create_task.
func (a *Adapter) Call(ctx context.Context, name string, args json.RawMessage, creds map[string]string, ac connector.Context) (json.RawMessage, error) {
	var settings struct {
		ProjectID string `json:"project_id"`
	}
	_ = json.Unmarshal(ac.Settings, &settings)
	var in struct {
		ProjectID string `json:"project_id"`
		Content   string `json:"content"`
		DueString string `json:"due_string"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, &connector.Error{Message: "arguments are not an object"}
	}
	project := in.ProjectID
	if project == "" {
		project = settings.ProjectID
	}
	switch name {
	case "list_tasks":
		return a.do(ctx, ac, creds, http.MethodGet, "/rest/v2/tasks?"+url.Values{"project_id": {project}}.Encode(), nil, nil)
	case "create_task":
		if in.Content == "" {
			return nil, &connector.Error{Message: "content is required"}
		}
		body := map[string]string{"content": in.Content, "project_id": project}
		if in.DueString != "" {
			body["due_string"] = in.DueString
		}
		return a.do(ctx, ac, creds, http.MethodPost, "/rest/v2/tasks", nil, body)
	}
	return nil, &connector.Error{Message: "Todoist has no tool " + name}
}
