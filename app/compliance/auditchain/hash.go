package auditchain

import (
	"crypto/sha256"
	"encoding/binary"
	"time"

	"github.com/workbench/workbench/eventstore"
)

// HashSize is the size of a chain hash (SHA-256).
const HashSize = sha256.Size

// Hash is one link of the chain.
type Hash [HashSize]byte

// Genesis is the previous hash of the first event in the log.
var Genesis Hash

// chainLabel starts every event's encoding, so a chain hash can never be mistaken for a hash of
// anything else Workbench computes.
const chainLabel = "workbench-audit-chain-v1"

// Link returns the chain hash of env given the hash of the event before it (Genesis for the first):
// SHA-256 over Encode(prev, env).
func Link(prev Hash, env eventstore.Envelope) Hash {
	return sha256.Sum256(Encode(nil, prev, env))
}

// Encode appends the canonical encoding of env, chained to prev, to dst and returns it. Every field has
// a fixed width or a length prefix, so no two different events encode to the same bytes:
//
//	str(label) | prev (32 bytes)
//	| u64 position.commit | u64 position.prepare
//	| str(event id, canonical 36-character form) | str(stream) | i64 version
//	| str(type) | i64 schema version | str(data, byte for byte as appended)
//	| str(actor) | str(on_behalf_of) | str(mcp_client) | str(correlation_id) | str(causation_id)
//	| str(time, RFC 3339 with nanoseconds, UTC)
//
// where u64/i64 are 8 bytes big-endian and str(x) is u32 big-endian length of x, then x. Metadata is
// encoded field by field (not as stored JSON, which PostgreSQL's jsonb re-orders), so the hash is the
// same on every backend.
func Encode(dst []byte, prev Hash, env eventstore.Envelope) []byte {
	dst = appendStr(dst, chainLabel)
	dst = append(dst, prev[:]...)
	dst = binary.BigEndian.AppendUint64(dst, env.Position.Commit)
	dst = binary.BigEndian.AppendUint64(dst, env.Position.Prepare)
	dst = appendStr(dst, env.ID.String())
	dst = appendStr(dst, env.Stream)
	dst = binary.BigEndian.AppendUint64(dst, uint64(env.Version))
	dst = appendStr(dst, env.Type)
	dst = binary.BigEndian.AppendUint64(dst, uint64(int64(env.SchemaVersion)))
	dst = appendBytes(dst, env.Data)
	md := env.Metadata
	dst = appendStr(dst, md.Actor)
	dst = appendStr(dst, md.OnBehalfOf)
	dst = appendStr(dst, md.MCPClient)
	dst = appendStr(dst, md.CorrelationID)
	dst = appendStr(dst, md.CausationID)
	dst = appendStr(dst, md.Time.UTC().Format(time.RFC3339Nano))
	return dst
}

func appendStr(dst []byte, s string) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(s)))
	return append(dst, s...)
}

func appendBytes(dst []byte, b []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}
