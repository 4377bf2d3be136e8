package jots

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/plugins"
)

// IntegrationName is the reserved name of the built-in jots integration.
const IntegrationName = "jots"

// Integration returns the jots integration for plugins.Registry.AddInternal: its manifest, its four
// tools and their Go handlers, which close over the service. Plugins never see the service: the
// handlers are registered by the server, under the reserved name.
func (s *Service) Integration() (plugins.Manifest, []plugins.ToolSpec, map[string]plugins.Handler) {
	m := plugins.Manifest{
		Name:        IntegrationName,
		Version:     "1.0.0",
		DisplayName: "Jots",
		Description: "Deploy and host small static sites (reports, dashboards, viewers) at /j/<name>/, sandboxed.",
		Categories:  []string{"hosting"},
		Auth:        plugins.Auth{Mode: plugins.AuthNone},
	}
	lim := s.limits
	tools := []plugins.ToolSpec{
		{
			Name: "deploy_jot",
			Description: fmt.Sprintf("Start deploying a static site (a jot) served at %s/j/<name>/. Returns a single-use upload_url valid for %s: "+
				"PUT or POST a gzip-compressed tar archive of the site to it (index.html at the archive's root), e.g. "+
				"`tar -czf site.tgz -C site . && curl --fail -T site.tgz '<upload_url>'`. Limits: %d bytes decompressed, %d files; "+
				"no symlinks, hardlinks, device files or paths outside the root. Names are global and locked to their creator; "+
				"a name never uploaded to is released when its upload URL expires. You may hold %d jot names and %d bytes of jots in all. "+
				"The site runs under a sandbox with an opaque origin: it cannot fetch its own files unless cors is true (public jots only), "+
				"so prefer self-contained pages. access \"password\" with a password gates the jot behind a form. Deploying again replaces every file.",
				s.jotsOrigin, lim.UploadTTL, lim.MaxBytes, lim.MaxFiles, lim.MaxJotsPerUser, lim.QuotaBytes),
			InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["name"],"properties":{
				"name":{"type":"string","pattern":"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$","description":"The jot's name: lowercase letters, digits, hyphens."},
				"access":{"type":"string","enum":["public","password"],"description":"Who may view it; default: keep the jot's current access (public for a new jot)."},
				"password":{"type":"string","minLength":1,"maxLength":72,"description":"Required with access \"password\"; setting it implies access \"password\"."},
				"cors":{"type":"boolean","description":"Let the jot's own scripts fetch its files (public jots only)."}}}`),
			Handler: plugins.HandlerGo,
		},
		{
			Name: "update_jot",
			Description: "Patch a live jot without redeploying it: put one file (replacing the file at that path, or adding it) given as " +
				"text in content or as bytes in content_base64, and/or change access, password or cors with no upload at all. " +
				"Other files are kept. Only the jot's creator can update it.",
			InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["name"],"properties":{
				"name":{"type":"string"},
				"path":{"type":"string","description":"The file to put, relative to the jot's root, e.g. data.json."},
				"content":{"type":"string","description":"The file's text (UTF-8)."},
				"content_base64":{"type":"string","description":"The file's bytes, base64-encoded (instead of content)."},
				"access":{"type":"string","enum":["public","password"]},
				"password":{"type":"string","minLength":1,"maxLength":72},
				"cors":{"type":"boolean"}}}`),
			Handler: plugins.HandlerGo,
		},
		{
			Name:        "list_jot_files",
			Description: "List what one of your jots currently holds: every file's path, size, sha256 and content type, its URL, access and cors.",
			InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["name"],"properties":{"name":{"type":"string"}}}`),
			Handler:     plugins.HandlerGo,
		},
		{
			Name:        "delete_jot",
			Description: "Delete one of your jots: it stops being served at once and its name becomes free. Only its creator can delete it.",
			InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["name"],"properties":{"name":{"type":"string"}}}`),
			Handler:     plugins.HandlerGo,
		},
	}
	handlers := map[string]plugins.Handler{
		"deploy_jot":     s.deployTool,
		"update_jot":     s.updateTool,
		"list_jot_files": s.listTool,
		"delete_jot":     s.deleteTool,
	}
	// None of these tools starts Off (they write Workbench's own jot store, under the user's quota, with no provider credential); each can still be switched Off at any scope.
	for i := range tools {
		tools[i].Mutating = new(bool)
	}
	return m, tools, handlers
}

type toolArgs struct {
	Name          string  `json:"name"`
	Path          string  `json:"path"`
	Content       *string `json:"content"`
	ContentBase64 *string `json:"content_base64"`
	Access        *string `json:"access"`
	Password      *string `json:"password"`
	CORS          *bool   `json:"cors"`
}

func parseTool(tool string, rc plugins.Context, raw json.RawMessage) (uuid.UUID, toolArgs, error) {
	var a toolArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return uuid.Nil, a, domain.Errorf(domain.CodeInvalid, "%s: bad arguments: %v", tool, err)
	}
	user, err := uuid.Parse(rc.UserID())
	if err != nil {
		return uuid.Nil, a, domain.Errorf(domain.CodeUnauthenticated, "%s: no user", tool)
	}
	return user, a, nil
}

func metadata(user uuid.UUID) eventstore.Metadata { return eventstore.Metadata{Actor: user.String()} }

func (s *Service) deployTool(ctx context.Context, rc plugins.Context, raw json.RawMessage) (any, error) {
	user, a, err := parseTool("deploy_jot", rc, raw)
	if err != nil {
		return nil, err
	}
	t, err := s.Deploy(ctx, user, a.Name, SettingsInput{Access: a.Access, Password: a.Password, CORS: a.CORS}, metadata(user))
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"name": t.Name, "upload_url": t.UploadURL, "expires_at": t.ExpiresAt, "url": t.URL,
		"how_to_upload": "curl --fail -T site.tgz '" + t.UploadURL + "'  (a gzip tarball; the URL works once)",
	}, nil
}

func (s *Service) updateTool(ctx context.Context, rc plugins.Context, raw json.RawMessage) (any, error) {
	user, a, err := parseTool("update_jot", rc, raw)
	if err != nil {
		return nil, err
	}
	var put []FileInput
	switch {
	case a.Content != nil && a.ContentBase64 != nil:
		return nil, domain.Errorf(domain.CodeInvalid, "update_jot: give content or content_base64, not both")
	case (a.Content != nil || a.ContentBase64 != nil) && a.Path == "":
		return nil, domain.Errorf(domain.CodeInvalid, "update_jot: content needs a path")
	case a.Path != "" && a.Content == nil && a.ContentBase64 == nil:
		return nil, domain.Errorf(domain.CodeInvalid, "update_jot: path %q needs content or content_base64", a.Path)
	case a.Content != nil:
		put = []FileInput{{Path: a.Path, Body: []byte(*a.Content)}}
	case a.ContentBase64 != nil:
		body, err := base64.StdEncoding.DecodeString(*a.ContentBase64)
		if err != nil {
			return nil, domain.Errorf(domain.CodeInvalid, "update_jot: content_base64 is not valid base64: %v", err)
		}
		put = []FileInput{{Path: a.Path, Body: body}}
	}
	return s.Update(ctx, user, a.Name, put, SettingsInput{Access: a.Access, Password: a.Password, CORS: a.CORS}, metadata(user))
}

func (s *Service) listTool(ctx context.Context, rc plugins.Context, raw json.RawMessage) (any, error) {
	user, a, err := parseTool("list_jot_files", rc, raw)
	if err != nil {
		return nil, err
	}
	return s.ListFiles(ctx, user, a.Name)
}

func (s *Service) deleteTool(ctx context.Context, rc plugins.Context, raw json.RawMessage) (any, error) {
	user, a, err := parseTool("delete_jot", rc, raw)
	if err != nil {
		return nil, err
	}
	if err := s.Delete(ctx, user, a.Name, metadata(user)); err != nil {
		return nil, err
	}
	return map[string]any{"name": a.Name, "deleted": true}, nil
}
