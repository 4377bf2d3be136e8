// Package toolsets keeps the toolsets organisations, guilds and agents curate (domain/toolset) and
// answers what one of them holds for a calling agent: the tools of the plugin registry and of the
// agent's connector logins that an entry names, less every tool switched Off for the agent (a switch
// binds a toolset as it binds execute_tools). A toolset's name is resolved along the agent's chain:
// the agent's own toolset of that name, else its guild's, else its organisation's.
package toolsets

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/toolset"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/projections/connectorsrm"
	"github.com/workbench/workbench/projections/toolsetsrm"
)

// Connectors is what toolsets need of the connectors use case (*connectors.Service).
type Connectors interface {
	CallerChain(ctx context.Context, caller executions.Caller) (connectorsrm.Chain, error)
	OfferedTools(ctx context.Context, caller executions.Caller) ([]connectorsrm.Effective, error)
	PluginToolStates(ctx context.Context, caller executions.Caller) (map[string]connectors.OffTool, map[string]bool, error)
}

// Scopes says who manages a scope (*connectors.OrganizationScopes).
type Scopes interface {
	MayManage(ctx context.Context, user uuid.UUID, o login.Owner) error
}

// Options configure the Service.
type Options struct {
	Store       eventstore.Store
	Reader      toolsetsrm.Reader
	Registry    *plugins.Registry
	Connectors  Connectors
	Scopes      Scopes
	Projections interface {
		WaitFor(ctx context.Context, pos eventstore.Position) error
	}
	Now func() time.Time
}

// Service keeps toolsets.
type Service struct{ opts Options }

var aggregate = eventstore.Aggregate[toolset.State, toolset.Command, domain.Event]{
	Initial: toolset.Initial, Evolve: toolset.Evolve, Decide: toolset.Decide,
	Codec: eventstore.NewJSONCodec(toolset.Events()...),
}

// New returns the service.
func New(o Options) (*Service, error) {
	if o.Store == nil || o.Reader.DB == nil || o.Registry == nil || o.Connectors == nil || o.Scopes == nil {
		return nil, errors.New("toolsets: a store, the read model, the registry, the connectors and the scopes are required")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Service{opts: o}, nil
}

func (s *Service) mayManage(ctx context.Context, user uuid.UUID, o toolset.Owner) error {
	if !o.Valid() {
		return domain.Errorf(domain.CodeInvalid, "owner_scope must be organization, guild or agent, with its owner_id")
	}
	return s.opts.Scopes.MayManage(ctx, user, login.Owner{Scope: login.Scope(o.Scope), ID: o.ID})
}

// Draft is what a save writes: a toolset's description, entries, connectors and whether it mirrors
// its one connector (toolset.Saved).
type Draft struct {
	Description string
	Entries     []toolset.Entry
	Connectors  []string
	Mirror      bool
}

// Save writes a new version of a toolset at a scope the user manages.
func (s *Service) Save(ctx context.Context, user uuid.UUID, o toolset.Owner, name string, d Draft) (toolsetsrm.Toolset, error) {
	description, entries, connectorIDs := d.Description, d.Entries, d.Connectors
	if err := s.mayManage(ctx, user, o); err != nil {
		return toolsetsrm.Toolset{}, err
	}
	res, err := eventstore.Execute(ctx, s.opts.Store, toolset.StreamName(o, name), aggregate, toolset.Command(toolset.Save{Owner: o, Name: name, Description: description,
		Entries: entries, Connectors: connectorIDs, Mirror: d.Mirror, By: user.String(), At: s.opts.Now()}), eventstore.Metadata{Actor: user.String(), Time: s.opts.Now().UTC()})
	if err != nil {
		return toolsetsrm.Toolset{}, err
	}
	if err := s.wait(ctx, res.Position); err != nil {
		return toolsetsrm.Toolset{}, err
	}
	ev := res.Events[0].(toolset.Saved)
	conns := ev.Connectors
	if conns == nil {
		conns = []string{} // as the read model answers it
	}
	return toolsetsrm.Toolset{Owner: o, Name: name, Version: ev.Version, Description: description, Entries: ev.Entries, Connectors: conns, Mirror: ev.Mirror, UpdatedAt: ev.At}, nil
}

func (s *Service) wait(ctx context.Context, pos eventstore.Position) error {
	if s.opts.Projections == nil {
		return nil
	}
	return s.opts.Projections.WaitFor(ctx, pos)
}

// Delete ends a toolset at a scope the user manages.
func (s *Service) Delete(ctx context.Context, user uuid.UUID, o toolset.Owner, name string) error {
	if err := s.mayManage(ctx, user, o); err != nil {
		return err
	}
	res, err := eventstore.Execute(ctx, s.opts.Store, toolset.StreamName(o, name), aggregate, toolset.Command(toolset.Delete{By: user.String(), At: s.opts.Now()}),
		eventstore.Metadata{Actor: user.String(), Time: s.opts.Now().UTC()})
	if err != nil {
		return err
	}
	return s.wait(ctx, res.Position)
}

// List is a scope's toolsets, for a user who manages it.
func (s *Service) List(ctx context.Context, user uuid.UUID, o toolset.Owner) ([]toolsetsrm.Toolset, error) {
	if err := s.mayManage(ctx, user, o); err != nil {
		return nil, err
	}
	out, err := s.opts.Reader.Of(ctx, []toolset.Owner{o}, "")
	if out == nil {
		out = []toolsetsrm.Toolset{}
	}
	return out, err
}

// Resolve is the toolset called name that the caller's agent sees: its own, else its guild's, else its
// organisation's. CodeNotFound when none.
func (s *Service) Resolve(ctx context.Context, caller executions.Caller, name string) (toolsetsrm.Toolset, error) {
	chain, err := s.opts.Connectors.CallerChain(ctx, caller)
	if err != nil {
		return toolsetsrm.Toolset{}, err
	}
	var owners []toolset.Owner
	for _, o := range chain.Owners() {
		if o.Scope != login.ScopePlatform {
			owners = append(owners, toolset.Owner{Scope: string(o.Scope), ID: o.ID})
		}
	}
	found, err := s.opts.Reader.Of(ctx, owners, name)
	if err != nil {
		return toolsetsrm.Toolset{}, err
	}
	rank := map[string]int{"organization": 0, "guild": 1, "agent": 2}
	best := -1
	for i, t := range found {
		if best < 0 || rank[t.Owner.Scope] > rank[found[best].Owner.Scope] {
			best = i
		}
	}
	if best < 0 {
		return toolsetsrm.Toolset{}, domain.Errorf(domain.CodeNotFound, "no toolset %q for this agent", name)
	}
	return found[best], nil
}

// Tool is one tool a toolset offers an agent, with the account its calls use.
type Tool struct {
	// Name is the tool's name in Workbench (execute_tools's); Listed the name the toolset lists and
	// calls it by: Name, or the remote's own name in a mirror toolset.
	Name        string
	Listed      string
	Description string
	InputSchema json.RawMessage
	// OutputSchema is a remote tool's listed outputSchema (nil when none).
	OutputSchema json.RawMessage
	// ReadOnly and Destructive are the tool's hints (nil when unknown).
	ReadOnly, Destructive *bool
	Account               string
	// Asks: each call waits for a person's approval.
	Asks bool
}

// Tools lists what ts offers the caller's agent now, by name: every tool an entry names that is not
// switched Off for the agent (the first entry that names a tool gives its account). A mirror toolset
// offers the tools of its one connector alone, listed by the remote's names, which its entries name
// (no entries: every tool of the connector).
func (s *Service) Tools(ctx context.Context, caller executions.Caller, ts toolsetsrm.Toolset) ([]Tool, error) {
	if ts.Mirror {
		return s.mirrorTools(ctx, caller, ts)
	}
	entryOf := func(name string) (toolset.Entry, bool) { return entryFor(ts.Entries, name) }
	off, asks, err := s.opts.Connectors.PluginToolStates(ctx, caller)
	if err != nil {
		return nil, err
	}
	var out []Tool
	for _, t := range s.opts.Registry.Tools() {
		e, ok := entryOf(t.Name)
		if !ok {
			continue
		}
		if _, isOff := off[t.Name]; isOff {
			continue
		}
		tool := Tool{Name: t.Name, Listed: t.Name, Description: t.Description, InputSchema: t.InputSchema, Account: e.Account, Asks: asks[t.Name]}
		if t.Mutating != nil {
			ro := !*t.Mutating
			tool.ReadOnly = &ro
		}
		out = append(out, tool)
	}
	remote, err := s.opts.Connectors.OfferedTools(ctx, caller)
	if err != nil {
		return nil, err
	}
	for _, t := range remote {
		e, ok := entryOf(t.Name)
		if !ok {
			continue
		}
		out = append(out, Tool{Name: t.Name, Listed: t.Name, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema,
			ReadOnly: t.ReadOnlyHint, Destructive: t.DestructiveHint, Account: e.Account, Asks: t.Ask})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (s *Service) mirrorTools(ctx context.Context, caller executions.Caller, ts toolsetsrm.Toolset) ([]Tool, error) {
	if len(ts.Connectors) != 1 {
		return nil, nil
	}
	remote, err := s.opts.Connectors.OfferedTools(ctx, caller)
	if err != nil {
		return nil, err
	}
	var out []Tool
	for _, t := range remote {
		if t.ServerID != ts.Connectors[0] || t.Remote == "" {
			continue
		}
		e := toolset.Entry{}
		if len(ts.Entries) > 0 {
			var ok bool
			if e, ok = entryFor(ts.Entries, t.Remote); !ok {
				continue
			}
		}
		out = append(out, Tool{Name: t.Name, Listed: t.Remote, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema,
			ReadOnly: t.ReadOnlyHint, Destructive: t.DestructiveHint, Account: e.Account, Asks: t.Ask})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Listed < out[j].Listed })
	return out, nil
}

// entryFor is the first entry that names tool.
func entryFor(entries []toolset.Entry, tool string) (toolset.Entry, bool) {
	for _, e := range entries {
		if e.Matches(tool) {
			return e, true
		}
	}
	return toolset.Entry{}, false
}
