package connectors

import "github.com/workbench/workbench/app/connectors/connectorcatalog"

// The names callers use for connectorcatalog's pieces.
type (
	CatalogEntry  = connectorcatalog.CatalogEntry
	ServerView    = connectorcatalog.ServerView
	AuthSpec      = connectorcatalog.AuthSpec
	ServerEdit    = connectorcatalog.ServerEdit
	AdminTool     = connectorcatalog.AdminTool
	AdminEntry    = connectorcatalog.AdminEntry
	AddRequest    = connectorcatalog.AddRequest
	RegistryEntry = connectorcatalog.RegistryEntry
)

// The registry index's limits (connectorcatalog/registryurl.go).
const (
	MaxRegistryIndexBytes = connectorcatalog.MaxRegistryIndexBytes
	RegistryIndexTimeout  = connectorcatalog.RegistryIndexTimeout
	RegistryIndexTTL      = connectorcatalog.RegistryIndexTTL
)
