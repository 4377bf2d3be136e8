package connectorcore

import "context"

// PlatformKeys reads the platform keys an instance admin set (Admin, Platform keys), at call time: a key
// is never copied onto a login. Names:
//
//   - "integration:<plugin slug>": an integration's OAuth client (fields client_id, client_secret) or
//     its API key fields (e.g. api_key), as the integration declares;
//   - "connector:<connector slug>": a connector's own key: its auth.fields for { own: true } platform
//     logins, or client_id and client_secret for the configured OAuth strategy without a provider;
//   - "github_app": the GitHub App (app_id, app_slug, client_id, client_secret, private_key).
type PlatformKeys interface {
	// PlatformKey returns the key's fields; ok is false when no key of that name is set.
	PlatformKey(ctx context.Context, name string) (fields map[string]string, ok bool, err error)
}
