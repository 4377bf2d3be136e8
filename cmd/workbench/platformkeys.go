package main

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/platformkeys"
	"github.com/workbench/workbench/handlers/platformkeyshttp"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/projections/connectorsrm"
	"github.com/workbench/workbench/projections/identityrm"
	"github.com/workbench/workbench/projections/platform"
)

// openPlatformKeys opens the platform keys (app/platformkeys): its cache is emptied by every batch of
// key events the platform_keys read model applies, on every replica; a write on this replica runs
// the platform login sync before it answers.
func (m *Main) openPlatformKeys() (*platformkeys.Service, error) {
	keys, err := platformkeys.New(platformkeys.Options{
		Store: m.Store, Reader: platform.Reader{DB: m.DB}, Projections: m.Runner, Vault: m.Vault,
		Integrations: m.Plugins, Catalog: connectorsrm.Reader{DB: m.DB}, Admins: m.Config.Admins,
		MonthlyCap: m.Config.OrgLimits.MonthlyCap, Now: m.Now,
		AfterWrite: func(ctx context.Context) error {
			if m.Connectors == nil {
				return nil
			}
			return m.Connectors.SyncPlatformLogins(ctx)
		},
	})
	if err != nil {
		return nil, err
	}
	if err := m.Runner.AfterApply(platform.KeysName, keys.Forget); err != nil {
		return nil, err
	}
	m.PlatformKeys = keys
	return keys, nil
}

// startPlatformLogins syncs the platform logins once the key store is loaded (boot), and makes every
// key event and every catalog event (connector.*) applied on this replica ask for a sync
// (RunPlatformSync, started with the other background tasks), with no restart.
func (m *Main) startPlatformLogins(ctx context.Context, svc *connectors.Service) error {
	if err := m.Runner.AfterApply(platform.KeysName, svc.PlatformKeysChanged); err != nil {
		return err
	}
	if err := m.Runner.AfterApply(connectorsrm.Name, svc.CatalogChanged); err != nil {
		return err
	}
	if err := m.Runner.CatchUp(ctx, platform.KeysName); err != nil {
		return err
	}
	if err := svc.SyncPlatformLogins(ctx); err != nil {
		// A connector whose listing or key read failed is tried again at the next sync.
		m.Logger.Warn("platform login sync at boot", "err", err)
	}
	return nil
}

// mountPlatformKeys mounts Admin, Platform keys and the caps usage (handlers/platformkeyshttp).
func (m *Main) mountPlatformKeys(r chi.Router, sessions *websession.Manager) {
	users := identityrm.Reader{DB: m.DB}
	platformkeyshttp.Mount(r, platformkeyshttp.Deps{
		UserOf: sessions.User, SameOrigin: sessions.SameOrigin, Keys: m.PlatformKeys, Logger: m.Logger,
		Email: func(r *http.Request, id uuid.UUID) (string, error) {
			u, err := users.UserByID(r.Context(), id)
			return u.Email, err
		},
	})
}
