package plugins

import (
	"encoding/json"
	"fmt"
	"io/fs"

	"github.com/workbench/workbench/domain"
)

// Builtin is one plugin folder that ships with the server. The provider packages beside this one
// (plugins/<provider>) each hand one out, and plugins/shipped lists them all for Options.Builtins.
type Builtin struct {
	// Folder is the folder's name; the plugin's Source is "builtin:<Folder>".
	Folder string
	// FS holds the folder's files at its root: manifest.json, tools.json and the logo.
	FS fs.FS
	// Handlers are the Go handlers of the plugin's "handler": "go" tools, by tool name.
	Handlers map[string]Handler
}

// DecodeArgs unmarshals a Go handler's arguments into v; a failure is an INVALID error naming the
// tool.
func DecodeArgs(tool string, args json.RawMessage, v any) error {
	if err := json.Unmarshal(args, v); err != nil {
		return &domain.Error{Code: domain.CodeInvalid, Message: fmt.Sprintf("%s: bad arguments: %v", tool, err), Err: err}
	}
	return nil
}
