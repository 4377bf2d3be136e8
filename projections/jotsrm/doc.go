// Package jots projects the jot events (domain/jot) into the jots and jot_files tables: which jots are
// live, who created them, how they are served (access, password hash, CORS) and the manifest of each.
// The jots host (handlers/jotshttp) answers every request from this read model and the blob store; the
// service (app/jots) waits for the projection after each change so a deploy is served as soon as
// it is acknowledged.
package jotsrm
