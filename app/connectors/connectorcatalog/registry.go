package connectorcatalog

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/workbench/workbench/app/connectors/mcpclient"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connectordom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/plugins/connector"
)

// The connector registry (spec connectors.md, Where connectors come from): a directory an operator
// fills with connectors an instance admin may install (CONNECTOR_REGISTRY_DIR). Each entry is a
// folder <slug>/connector.json or a file <slug>.json, checked by the same loader as the shipped
// folders (connector.Parse, with no adapter: a registry connector is an endpoint, never Go code). The
// registry's verified.txt lists the slugs it vouches for, one a line (# starts a comment). Entries
// are read afresh at every listing and install, so a file added later needs no restart. An install
// is an event (connector.installed with source registry), so the row survives restarts without its
// entry.
const (
	// RegistryVerifiedFile names the registry's list of verified slugs.
	RegistryVerifiedFile = "verified.txt"
	// MaxRegistryManifestBytes bounds one entry's manifest.
	MaxRegistryManifestBytes = 1 << 20
)

// RegistryEntry is one connector the registry offers.
type RegistryEntry struct {
	Slug        string `json:"slug"`
	DisplayName string `json:"display_name"`
	Description string `json:"description"`
	Version     string `json:"version"`
	Publisher   string `json:"publisher"`
	Verified    bool   `json:"verified"`
	// Installed: a connector of this slug is in the catalog; InstalledSource is its source (core,
	// registry, local) and InstalledOwner the organisation that owns it ("" for the platform's).
	Installed       bool   `json:"installed"`
	InstalledSource string `json:"installed_source,omitempty"`
	InstalledOwner  string `json:"installed_owner,omitempty"`
	// Problems are why it would not install (the loader's reasons); empty when it would.
	Problems []string `json:"problems"`

	raw []byte
	m   *connector.Manifest
}

// readRegistry reads every entry of the registry, by slug: the index at RegistryURL when one is
// set (registryurl.go), else the directory.
func (s *Service) readRegistry(ctx context.Context) ([]RegistryEntry, error) {
	if s.Opts.RegistryURL != "" {
		return s.readRegistryIndex(ctx)
	}
	fsys := s.Opts.Registry
	if fsys == nil {
		return nil, nil
	}
	dirents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, &domain.Error{Code: domain.CodeUnavailable, Message: "the connector registry cannot be read", Err: err}
	}
	verified, err := readVerified(fsys)
	if err != nil {
		return nil, &domain.Error{Code: domain.CodeUnavailable, Message: "the connector registry's " + RegistryVerifiedFile + " cannot be read", Err: err}
	}
	var out []RegistryEntry
	for _, d := range dirents {
		name := d.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		var slug, file string
		switch {
		case d.IsDir():
			slug, file = name, path.Join(name, connector.ManifestFile)
			if _, err := fs.Stat(fsys, file); errors.Is(err, fs.ErrNotExist) {
				continue
			}
		case strings.HasSuffix(name, ".json"):
			slug, file = strings.TrimSuffix(name, ".json"), name
		default:
			continue
		}
		raw, err := readCapped(fsys, file)
		if err != nil {
			out = append(out, RegistryEntry{Slug: slug, Verified: verified[slug], Problems: []string{err.Error()}})
			continue
		}
		out = append(out, registryEntry(slug, raw, verified[slug]))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Slug < out[j].Slug })
	return out, nil
}

// registryEntry checks one entry's manifest as the shipped folders are checked (connector.Parse,
// no adapter) plus the registry's own rules, whether it came from the directory or the index.
func registryEntry(slug string, raw []byte, verified bool) RegistryEntry {
	e := RegistryEntry{Slug: slug, Verified: verified, Problems: []string{}, raw: raw}
	c, reasons := connector.Parse(slug, raw, nil)
	if c != nil {
		e.m = &c.Manifest
		e.DisplayName, e.Description, e.Version, e.Publisher = c.Manifest.DisplayName, c.Manifest.Description, c.Manifest.Version, c.Manifest.Publisher
		reasons = append(reasons, registryRules(raw)...)
	}
	e.Problems = append(e.Problems, reasons...)
	return e
}

func readCapped(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxRegistryManifestBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(b) > MaxRegistryManifestBytes {
		return nil, fmt.Errorf("%s is over %d bytes", name, MaxRegistryManifestBytes)
	}
	return b, nil
}

func readVerified(fsys fs.FS) (map[string]bool, error) {
	b, err := fs.ReadFile(fsys, RegistryVerifiedFile)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if line = strings.TrimSpace(line); line != "" {
			out[line] = true
		}
	}
	return out, sc.Err()
}

// registryRules are what a registry connector may not do that a shipped one may: name one of the
// box's own integrations as its platform key (auth.instance {integration, field} is for connectors
// the box ships).
func registryRules(raw []byte) []string {
	var m struct {
		Auth struct {
			Instance map[string]json.RawMessage `json:"instance"`
		} `json:"auth"`
	}
	if json.Unmarshal(raw, &m) == nil {
		if _, ok := m.Auth.Instance["integration"]; ok {
			return []string{"auth.instance names an integration of the box; only a connector the box ships may (a registry connector may use {\"own\": true})"}
		}
	}
	return nil
}

// Registry lists the registry's entries with whether each is installed. No registry: an empty list.
func (s *Service) Registry(ctx context.Context) ([]RegistryEntry, error) {
	entries, err := s.readRegistry(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.Reader.Servers(ctx)
	if err != nil {
		return nil, err
	}
	for i := range entries {
		for _, r := range rows {
			if r.Slug == entries[i].Slug {
				entries[i].Installed, entries[i].InstalledSource, entries[i].InstalledOwner = true, r.Source, r.OwnerOrgID
			}
		}
	}
	if entries == nil {
		entries = []RegistryEntry{}
	}
	return entries, nil
}

// InstallFromRegistry installs the registry's entry slug as a platform connector (source registry,
// with the registry's verified mark and the manifest's publisher and version), on at install, its
// tool prefix generated against every prefix on the box. CodeNotFound for a slug the registry does
// not hold; CodeConflict when a connector of that slug exists (naming whose); CodeUnprocessable
// naming the manifest's problems, or an endpoint the address check refuses. The caller is an
// instance admin (the handler checks).
func (s *Service) InstallFromRegistry(ctx context.Context, actor, slug string) (ServerView, error) {
	entries, err := s.Registry(ctx)
	if err != nil {
		return ServerView{}, err
	}
	var e *RegistryEntry
	for i := range entries {
		if entries[i].Slug == slug {
			e = &entries[i]
		}
	}
	switch {
	case e == nil:
		return ServerView{}, domain.Errorf(domain.CodeNotFound, "the connector registry holds no connector %q", slug)
	case e.Installed && e.InstalledOwner != "":
		return ServerView{}, domain.Errorf(domain.CodeConflict, "slug %q is taken by organisation %s's own server", slug, e.InstalledOwner)
	case e.Installed:
		return ServerView{}, domain.Errorf(domain.CodeConflict, "a platform connector with slug %q is already installed (source %s)", slug, e.InstalledSource)
	case len(e.Problems) > 0:
		return ServerView{}, domain.Errorf(domain.CodeUnprocessable, "the registry's %s does not load: %s", slug, strings.Join(e.Problems, "; "))
	}
	if e.m.Endpoint != nil {
		if err := mcpclient.CheckURL(ctx, e.m.Endpoint.URL, s.Opts.AllowLoopback, s.Opts.Resolver); err != nil {
			return ServerView{}, domain.Errorf(domain.CodeUnprocessable, "endpoint.url: %s", err.Error())
		}
	}
	prefixes, err := s.Reader.Prefixes(ctx)
	if err != nil {
		return ServerView{}, err
	}
	id := "mcp_" + slug
	prefix := connector.ToolPrefix(slug, func(p string) bool { _, ok := prefixes[p]; return ok || s.Opts.Reserved(p) })
	sum := sha256.Sum256(e.raw)
	ev := connectordom.Installed{ID: id, Slug: slug, ToolPrefix: prefix, Manifest: json.RawMessage(e.raw), Digest: hex.EncodeToString(sum[:]),
		Source: connectordom.SourceRegistry, Version: e.Version, Publisher: e.Publisher, Verified: e.Verified, At: s.Opts.Now().UTC()}
	res, err := eventstore.Execute(ctx, s.Opts.Store, connectordom.StreamName(id), connectorAggregate, connectordom.Command(connectordom.InstallFromRegistry{Event: ev}), s.MD(actor))
	if err != nil {
		return ServerView{}, err
	}
	if err := s.Wait(ctx, res.Position, len(res.Events)); err != nil {
		return ServerView{}, err
	}
	s.Log.InfoContext(ctx, "connector installed from the registry", "server", id, "by", actor, "verified", e.Verified, "version", e.Version)
	return s.Server(ctx, id)
}
