package jots

import "time"

// Defaults of Limits (spec: "Defaults are 5 MiB decompressed, 1000 files, and a 5-minute upload
// token, all configurable").
const (
	DefaultMaxBytes  = 5 << 20
	DefaultMaxFiles  = 1000
	DefaultUploadTTL = 5 * time.Minute
)

// Limits bound what one jot may hold and how long an upload URL lives.
type Limits struct {
	// MaxBytes is the total size of a jot's files, decompressed (default 5 MiB).
	MaxBytes int64
	// MaxFiles is how many files a jot may hold (default 1000).
	MaxFiles int
	// UploadTTL is how long an upload URL from deploy_jot stays valid (default 5 minutes).
	UploadTTL time.Duration
}

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = DefaultMaxFiles
	}
	if l.UploadTTL <= 0 {
		l.UploadTTL = DefaultUploadTTL
	}
	return l
}

// MaxEntries bounds the entries of an archive, directories included.
func (l Limits) MaxEntries() int { return 2*l.MaxFiles + 64 }

// MaxStreamBytes bounds the decompressed tar stream: the files themselves plus room for a header and
// padding per entry and some PAX records. It is also the cap on the compressed upload: gzip never makes
// a tar stream meaningfully larger.
func (l Limits) MaxStreamBytes() int64 {
	return l.MaxBytes + int64(l.MaxEntries())*2048 + 1<<20
}
