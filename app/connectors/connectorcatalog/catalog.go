package connectorcatalog

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connectordom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// CatalogEntry is one server of GET /api/mcp/servers: the catalog view with whether it is the
// caller organisation's own ("This organisation's") and whether the platform key it needs is set.
type CatalogEntry struct {
	ServerView
	// Own: the caller organisation's own server; OwnerOrgID is set for it alone.
	Own        bool   `json:"own"`
	OwnerOrgID string `json:"owner_org_id,omitempty"`
	// SetUp is false when a platform key the connector needs is not set (SetupState "not_set_up",
	// PlatformKey names it; Admin, Platform keys sets it).
	SetUp       bool   `json:"set_up"`
	SetupState  string `json:"setup_state,omitempty"`
	PlatformKey string `json:"platform_key,omitempty"`
}

// Catalog lists the servers an organisation sees: the platform's and its own (spec connectors.md,
// The catalog in Admin). org uuid.Nil is the user's home organisation (their default agent's);
// another organisation must count the user a member (else CodeNotFound).
func (s *Service) Catalog(ctx context.Context, user, org uuid.UUID) ([]CatalogEntry, error) {
	if org == uuid.Nil {
		_, chain, err := s.Home(ctx, user)
		if err != nil {
			return nil, err
		}
		org = chain.OrganizationID
	} else if role, err := s.OrgRole(ctx, org, user); err != nil {
		return nil, err
	} else if role == "" {
		return nil, domain.Errorf(domain.CodeNotFound, "no organization %s", org)
	}
	rows, err := s.Reader.ServersFor(ctx, org.String())
	if err != nil {
		return nil, err
	}
	out := make([]CatalogEntry, 0, len(rows))
	for _, r := range rows {
		e, err := s.catalogEntry(ctx, r)
		if err != nil {
			s.Log.ErrorContext(ctx, "catalog row unreadable", "server", r.ID, "err", err)
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

func (s *Service) catalogEntry(ctx context.Context, r connectorsrm.Server) (CatalogEntry, error) {
	m, err := s.ManifestOf(r)
	if err != nil {
		return CatalogEntry{}, err
	}
	e := CatalogEntry{ServerView: s.serverView(r, m), Own: r.OwnerOrgID != "", OwnerOrgID: r.OwnerOrgID, SetUp: true}
	if e.DisplayName == "" {
		e.DisplayName = r.Slug
	}
	for _, k := range requiredKeys(r.Slug, r.Manifest) {
		ok, err := s.platformKeySet(ctx, k)
		if err != nil {
			return CatalogEntry{}, err
		}
		if !ok {
			e.SetUp, e.SetupState, e.PlatformKey = false, "not_set_up", k
			break
		}
	}
	return e, nil
}

// platformKeySet reports whether a platform key is set (none is without PlatformKeys).
func (s *Service) platformKeySet(ctx context.Context, name string) (bool, error) {
	if s.Opts.PlatformKeys == nil {
		return false, nil
	}
	_, ok, err := s.Opts.PlatformKeys.PlatformKey(ctx, name)
	if err != nil {
		return false, fmt.Errorf("platform key %s: %w", name, err)
	}
	return ok, nil
}

// requiredKeys names the platform keys a manifest needs before it can be used (platformkeys.go's
// names): its requires.integration; auth.instance's integration, or its own key; the configured OAuth
// strategy's provider, or its own client; the GitHub App.
func requiredKeys(slug string, raw json.RawMessage) []string {
	var m struct {
		Requires struct {
			Integration string `json:"integration"`
		} `json:"requires"`
		Auth struct {
			OAuth *struct {
				Strategy string `json:"strategy"`
				Provider string `json:"provider"`
			} `json:"oauth"`
			Instance *struct {
				Integration string `json:"integration"`
				Own         bool   `json:"own"`
			} `json:"instance"`
		} `json:"auth"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	var out []string
	add := func(k string) {
		for _, x := range out {
			if x == k {
				return
			}
		}
		out = append(out, k)
	}
	if m.Requires.Integration != "" {
		add("integration:" + m.Requires.Integration)
	}
	if in := m.Auth.Instance; in != nil {
		switch {
		case in.Integration != "":
			add("integration:" + in.Integration)
		case in.Own:
			add("connector:" + slug)
		}
	}
	if o := m.Auth.OAuth; o != nil {
		switch o.Strategy {
		case "configured":
			if o.Provider != "" {
				add("integration:" + o.Provider)
			} else {
				add("connector:" + slug)
			}
		case "github_app":
			add("github_app")
		}
	}
	return out
}

// executeCatalog runs one catalog edit on a connector's stream and waits for the read models.
func (s *Service) executeCatalog(ctx context.Context, actor, id string, cmd connectordom.CatalogCommand) (connectordom.State, error) {
	res, err := eventstore.Execute(ctx, s.Opts.Store, connectordom.StreamName(id), connectorAggregate, connectordom.Command(cmd), s.MD(actor))
	if err != nil {
		return res.State, err
	}
	return res.State, s.Wait(ctx, res.Position, len(res.Events))
}

// OverrideListed applies the instance admin's tool overrides (description, input_schema) to a
// listing: a listed tool takes them at its next listing (spec connectors.md, The catalog in Admin).
func OverrideListed(srv connectorsrm.Server, listed []connector.Tool) []connector.Tool {
	o, err := overridesOf(srv)
	if err != nil || o == nil || len(o.Tools) == 0 {
		return listed
	}
	out := make([]connector.Tool, len(listed))
	for i, t := range listed {
		if to, ok := o.Tools[t.Name]; ok {
			if to.Description != nil {
				t.Description = *to.Description
			}
			if len(to.InputSchema) > 0 {
				t.InputSchema = to.InputSchema
			}
		}
		out[i] = t
	}
	return out
}
