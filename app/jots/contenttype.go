package jots

import (
	"path"
	"strings"
)

// contentTypes are the types of the files a static site usually holds. The table is fixed here rather
// than read from the host's mime.types, so a jot is served alike on every machine.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8", ".htm": "text/html; charset=utf-8",
	".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
	".json": "application/json", ".map": "application/json", ".webmanifest": "application/manifest+json",
	".txt": "text/plain; charset=utf-8", ".md": "text/markdown; charset=utf-8", ".csv": "text/csv; charset=utf-8",
	".xml": "application/xml", ".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg",
	".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp", ".avif": "image/avif", ".ico": "image/x-icon",
	".woff": "font/woff", ".woff2": "font/woff2", ".ttf": "font/ttf", ".otf": "font/otf",
	".wasm": "application/wasm", ".pdf": "application/pdf", ".mp4": "video/mp4", ".webm": "video/webm",
	".mp3": "audio/mpeg", ".wav": "audio/wav", ".ogg": "audio/ogg", ".zip": "application/zip",
	".gz": "application/gzip", ".yaml": "application/yaml", ".yml": "application/yaml",
}

// ContentType is the type a jot file is served with, from its extension. Unknown extensions are
// application/octet-stream: the host sends nosniff, so a browser never guesses.
func ContentType(p string) string {
	ext := strings.ToLower(path.Ext(p))
	if t, ok := contentTypes[ext]; ok {
		return t
	}
	return "application/octet-stream"
}
