package connectorcatalog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/workbench/workbench/domain/connectordom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/plugins/connector"
)

// Install records every loaded folder in the catalog (spec connectors.md, Where connectors come
// from): a new connector gets a tool prefix generated from its slug against every prefix on the box
// and the reserved names; a folder whose manifest changed replaces the row's manifest and source,
// keeping its switch, OAuth client, overrides and prefix. It runs at boot.
func (s *Service) Install(ctx context.Context) error {
	prefixes, err := s.Reader.Prefixes(ctx)
	if err != nil {
		return fmt.Errorf("install connectors: %w", err)
	}
	var last eventstore.Position
	n := 0
	for _, c := range s.Opts.Connectors {
		id := c.ID()
		sum := sha256.Sum256(c.Raw)
		taken := func(p string) bool {
			owner, ok := prefixes[p]
			return (ok && owner != id) || s.Opts.Reserved(p)
		}
		prefix := ""
		for p, owner := range prefixes {
			if owner == id {
				prefix = p
			}
		}
		if prefix == "" {
			prefix = connector.ToolPrefix(c.Manifest.Slug, taken)
		}
		ev := connectordom.Installed{ID: id, Slug: c.Manifest.Slug, ToolPrefix: prefix, Manifest: c.Raw, Digest: hex.EncodeToString(sum[:]),
			Source: c.Source, Version: c.Manifest.Version, Publisher: c.Manifest.Publisher, At: s.Opts.Now().UTC()}
		res, err := eventstore.Execute(ctx, s.Opts.Store, connectordom.StreamName(id), connectorAggregate, connectordom.Command(connectordom.Install{Event: ev}), s.MD("system"))
		if err != nil {
			return fmt.Errorf("install %s: %w", id, err)
		}
		prefixes[res.State.ToolPrefix] = id
		if len(res.Events) > 0 {
			last, n = res.Position, n+1
		}
	}
	return s.Wait(ctx, last, n)
}
