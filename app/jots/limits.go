package jots

import "time"

// Defaults of Limits (spec: "Defaults are 5 MiB decompressed, 1000 files, and a 5-minute upload
// token, all configurable").
const (
	DefaultMaxBytes  = 5 << 20
	DefaultMaxFiles  = 1000
	DefaultUploadTTL = 5 * time.Minute
	// DefaultMaxJotsPerUser bounds the names one user holds, live or claimed.
	DefaultMaxJotsPerUser = 100
	// DefaultQuotaBytes bounds the total size of one user's live jots.
	DefaultQuotaBytes = 100 << 20
)

// Limits bound what one jot may hold and how long an upload URL lives.
type Limits struct {
	// MaxBytes is the total size of a jot's files, decompressed (default 5 MiB).
	MaxBytes int64
	// MaxFiles is how many files a jot may hold (default 1000).
	MaxFiles int
	// UploadTTL is how long an upload URL from deploy_jot stays valid (default 5 minutes). A name
	// claimed but never deployed is released when its last upload URL expires.
	UploadTTL time.Duration
	// MaxJotsPerUser is how many names one user may hold at once: live jots plus names claimed by
	// deploy_jot whose upload has not expired (default 100).
	MaxJotsPerUser int
	// QuotaBytes is the total size of one user's live jots, files counted as the manifests list them
	// (default 100 MiB).
	QuotaBytes int64
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
	if l.MaxJotsPerUser <= 0 {
		l.MaxJotsPerUser = DefaultMaxJotsPerUser
	}
	if l.QuotaBytes <= 0 {
		l.QuotaBytes = DefaultQuotaBytes
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
