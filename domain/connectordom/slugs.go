package connectordom

import (
	"time"

	"github.com/workbench/workbench/domain"
)

// The slugs and tool prefixes of local rows are claimed on one stream, connector-catalog, so two adds
// racing on one box or on two replicas cannot both take a slug or a prefix: the second append meets
// a version conflict and decides again on the state the first one left (spec connectors.md, An
// organisation's own servers: a slug is unique per owner, an organisation's slug is never a platform
// connector's and the reverse, and a prefix is unique on the box).
const (
	TypeSlugClaimed  = "connector.slug_claimed"
	TypeSlugReleased = "connector.slug_released"
)

// CatalogStream is the stream of the claims.
const CatalogStream = "connector-catalog"

// SlugClaimed reserves a slug for an owner and a tool prefix for a connector id.
type SlugClaimed struct {
	ID         string    `json:"id"`
	Slug       string    `json:"slug"`
	OwnerOrgID string    `json:"owner_org_id,omitempty"`
	ToolPrefix string    `json:"tool_prefix"`
	At         time.Time `json:"at"`
}

func (SlugClaimed) EventType() string { return TypeSlugClaimed }

// SlugReleased frees a removed connector's slug and prefix.
type SlugReleased struct {
	ID string    `json:"id"`
	At time.Time `json:"at"`
}

func (SlugReleased) EventType() string { return TypeSlugReleased }

// Row is one catalog row as far as slugs and prefixes go.
type Row struct {
	ID, Slug, OwnerOrgID, ToolPrefix string
}

// Claims is the claim stream folded: the local rows by id.
type Claims struct {
	Rows map[string]Row
}

// InitialClaims is the state of no claim.
func InitialClaims() Claims { return Claims{Rows: map[string]Row{}} }

// EvolveClaims folds one claim event.
func EvolveClaims(s Claims, e domain.Event) Claims {
	if s.Rows == nil {
		s.Rows = map[string]Row{}
	}
	switch ev := e.(type) {
	case SlugClaimed:
		s.Rows[ev.ID] = Row{ID: ev.ID, Slug: ev.Slug, OwnerOrgID: ev.OwnerOrgID, ToolPrefix: ev.ToolPrefix}
	case SlugReleased:
		delete(s.Rows, ev.ID)
	}
	return s
}

// ClaimCommand is a claim or a release.
type ClaimCommand interface{ isClaimCommand() }

// Claim reserves a new local row's slug and generates its prefix.
type Claim struct {
	ID, Slug, OwnerOrgID string
	// Installed are the rows of the catalog read model (the folders installed at boot among them);
	// the claims already made are added to them.
	Installed []Row
	// Prefix generates the prefix from the slug, given what is taken (plugins/connector.ToolPrefix
	// with the reserved names).
	Prefix func(taken func(string) bool) string
	// MaxPerOrg caps an organisation's rows (0: no cap).
	MaxPerOrg int
	At        time.Time
}

// Release frees a removed row's claim.
type Release struct {
	ID string
	At time.Time
}

func (Claim) isClaimCommand()   {}
func (Release) isClaimCommand() {}

// DecideClaims decides a claim against every row on the box: the same owner may not hold the slug
// twice; an organisation may not take a platform connector's slug and the platform may not take an
// organisation's (the refusal names the other side); the prefix is unique on the box; an organisation
// holds at most MaxPerOrg rows.
func DecideClaims(s Claims, c ClaimCommand) ([]domain.Event, error) {
	switch c := c.(type) {
	case Release:
		if _, ok := s.Rows[c.ID]; !ok {
			return nil, nil
		}
		return []domain.Event{SlugReleased{ID: c.ID, At: c.At.UTC()}}, nil
	case Claim:
		if c.ID == "" || c.Slug == "" || c.Prefix == nil || c.At.IsZero() {
			return nil, domain.Errorf(domain.CodeInvalid, "claim: no id, slug, prefix generator or time")
		}
		rows := map[string]Row{}
		for _, r := range c.Installed {
			rows[r.ID] = r
		}
		for id, r := range s.Rows {
			rows[id] = r
		}
		if _, ok := rows[c.ID]; ok {
			return nil, domain.Errorf(domain.CodeConflict, "connector %s exists", c.ID)
		}
		prefixes := map[string]bool{}
		n := 0
		for _, r := range rows {
			prefixes[r.ToolPrefix] = true
			if c.OwnerOrgID != "" && r.OwnerOrgID == c.OwnerOrgID {
				n++
			}
			if r.Slug != c.Slug {
				continue
			}
			switch {
			case r.OwnerOrgID == c.OwnerOrgID && c.OwnerOrgID == "":
				return nil, domain.Errorf(domain.CodeConflict, "slug %q is taken: the catalog has the platform connector %s", c.Slug, r.ID)
			case r.OwnerOrgID == c.OwnerOrgID:
				return nil, domain.Errorf(domain.CodeConflict, "slug %q is taken: this organisation already has a server %s", c.Slug, r.ID)
			case r.OwnerOrgID == "":
				return nil, domain.Errorf(domain.CodeConflict, "slug %q is a platform connector's (%s): an organisation's server may not use it", c.Slug, r.ID)
			case c.OwnerOrgID == "":
				return nil, domain.Errorf(domain.CodeConflict, "slug %q is an organisation's own server's: a platform connector may not use it", c.Slug)
			}
		}
		if c.OwnerOrgID != "" && c.MaxPerOrg > 0 && n >= c.MaxPerOrg {
			return nil, domain.Errorf(domain.CodeConflict, "this organisation has %d MCP servers, the most its limits allow (maxMcpServers %d)", n, c.MaxPerOrg)
		}
		prefix := c.Prefix(func(p string) bool { return prefixes[p] })
		if prefix == "" || prefixes[prefix] {
			return nil, domain.Errorf(domain.CodeInvalid, "claim: no free tool prefix for %q", c.Slug)
		}
		return []domain.Event{SlugClaimed{ID: c.ID, Slug: c.Slug, OwnerOrgID: c.OwnerOrgID, ToolPrefix: prefix, At: c.At.UTC()}}, nil
	}
	return nil, domain.Errorf(domain.CodeInvalid, "unknown claim command %T", c)
}
