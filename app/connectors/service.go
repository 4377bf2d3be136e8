package connectors

import (
	"github.com/workbench/workbench/app/connectors/connectorcatalog"
	"github.com/workbench/workbench/app/connectors/connectorcore"
	"github.com/workbench/workbench/app/connectors/connectorlogins"
	"github.com/workbench/workbench/app/connectors/connectortools"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// The use cases a Service composes.
type (
	catalog = connectorcatalog.Service
	logins  = connectorlogins.Service
	tools   = connectortools.Service
)

// Service is the connectors use case. It is safe for concurrent use.
type Service struct {
	*connectorcore.Core
	*catalog
	*logins
	*tools
}

// New checks opts and returns a Service.
func New(opts Options) (*Service, error) {
	core, err := connectorcore.New(opts)
	if err != nil {
		return nil, err
	}
	cat := connectorcatalog.New(core)
	lg := connectorlogins.New(core, cat)
	tl := connectortools.New(core, lg)
	// The catalog removes a server's logins and switches through the tools use case (which owns the
	// switch streams and reaches the logins); the logins clear a removed login's switches through it.
	cat.Dependents = tl
	lg.Switches = tl
	return &Service{Core: core, catalog: cat, logins: lg, tools: tl}, nil
}

// Reader is the read model the service reads.
func (s *Service) Reader() connectorsrm.Reader { return s.Core.Reader }
