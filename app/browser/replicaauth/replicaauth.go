// Package replicaauth authenticates requests one replica of the server sends another (a browser tool
// call or a live-view request forwarded to the replica that holds the user's browser session). The
// sender signs the method, the path and query, the user the request acts for, a timestamp and the
// SHA-256 of the body with HMAC-SHA256 under a key every replica derives from the server's root key;
// the receiver accepts a request within Window of its timestamp only. No user credential travels
// between replicas: the signed user id is the whole authority.
package replicaauth

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Header carries the signature: "v1 <unix seconds> <user id> <hex HMAC>".
const Header = "X-Workbench-Replica"

// Window is how far a request's timestamp may be from the receiver's clock.
const Window = 60 * time.Second

// MaxBody bounds the body a receiver reads to check its digest.
const MaxBody = 1 << 20

// ErrUnauthenticated: the request carries no valid signature.
var ErrUnauthenticated = errors.New("replicaauth: the request is not signed by a replica of this server")

// Signer signs and verifies replica requests.
type Signer struct {
	key []byte
	now func() time.Time
}

// New returns a signer under key (at least 32 bytes). now defaults to time.Now.
func New(key []byte, now func() time.Time) (*Signer, error) {
	if len(key) < 32 {
		return nil, errors.New("replicaauth: the key must be at least 32 bytes")
	}
	if now == nil {
		now = time.Now
	}
	return &Signer{key: bytes.Clone(key), now: now}, nil
}

func (s *Signer) mac(method, target string, user uuid.UUID, ts int64, body []byte) []byte {
	sum := sha256.Sum256(body)
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("workbench/replica/v1\n" + method + "\n" + target + "\n" + user.String() + "\n" + strconv.FormatInt(ts, 10) + "\n"))
	m.Write(sum[:])
	return m.Sum(nil)
}

// Sign sets r's signature for user over its method, path and query and body (which must be what r
// sends).
func (s *Signer) Sign(r *http.Request, user uuid.UUID, body []byte) {
	ts := s.now().Unix()
	r.Header.Set(Header, "v1 "+strconv.FormatInt(ts, 10)+" "+user.String()+" "+hex.EncodeToString(s.mac(r.Method, r.URL.RequestURI(), user, ts, body)))
}

// Verify checks r's signature and returns the user it acts for. It reads the body (at most MaxBody)
// and puts it back, so the handler can read it again.
func (s *Signer) Verify(r *http.Request) (uuid.UUID, error) {
	f := strings.Fields(r.Header.Get(Header))
	if len(f) != 4 || f[0] != "v1" {
		return uuid.Nil, ErrUnauthenticated
	}
	ts, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return uuid.Nil, ErrUnauthenticated
	}
	if d := s.now().Sub(time.Unix(ts, 0)); d > Window || d < -Window {
		return uuid.Nil, ErrUnauthenticated
	}
	user, err := uuid.Parse(f[2])
	if err != nil || user == uuid.Nil {
		return uuid.Nil, ErrUnauthenticated
	}
	got, err := hex.DecodeString(f[3])
	if err != nil {
		return uuid.Nil, ErrUnauthenticated
	}
	var body []byte
	if r.Body != nil {
		body, err = io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
		r.Body.Close()
		if err != nil || len(body) > MaxBody {
			return uuid.Nil, ErrUnauthenticated
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	if !hmac.Equal(got, s.mac(r.Method, r.URL.RequestURI(), user, ts, body)) {
		return uuid.Nil, ErrUnauthenticated
	}
	return user, nil
}
