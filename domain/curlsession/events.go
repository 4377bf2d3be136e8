package curlsession

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Event type names. They are written into the log and never change once an event has been stored.
const (
	TypeSessionMinted  = "curlsession.minted"
	TypeRequestProxied = "curlsession.request_proxied"
	// TypeRequestForwarded is appended, durably, before a request is sent to the provider.
	TypeRequestForwarded = "curlsession.request_forwarded"
	sessionStreamPrefix  = "curlsession-"
)

// TTL is how long a curl_session token lives (spec: "mints a 15-minute token").
const TTL = 15 * time.Minute

// SessionStreamName is the stream of one session: its mint, then its requests.
func SessionStreamName(id uuid.UUID) string { return sessionStreamPrefix + id.String() }

// SessionMinted records a curl_session call that issued a token.
type SessionMinted struct {
	SessionID uuid.UUID `json:"session_id"`
	UserID    uuid.UUID `json:"user_id"`
	// Via is how the agent authenticated (api_key, oauth, session); ClientID the key or client id.
	Via          string   `json:"via,omitempty"`
	ClientID     string   `json:"client_id,omitempty"`
	Integrations []string `json:"integrations"`
	// Account is the label of the account the session uses for every integration (empty: each
	// one's default account, and every session minted before accounts existed).
	Account   string    `json:"account,omitempty"`
	ExpiresAt time.Time `json:"expires_at"`
	At        time.Time `json:"at"`
}

// EventType implements domain.Event.
func (SessionMinted) EventType() string { return TypeSessionMinted }

// Validate checks that the event is complete before it is appended.
func (e SessionMinted) Validate() error {
	switch {
	case e.SessionID == uuid.Nil:
		return domain.Errorf(domain.CodeInvalid, "curl session minted: no session id")
	case e.UserID == uuid.Nil:
		return domain.Errorf(domain.CodeInvalid, "curl session minted: no user")
	case len(e.Integrations) == 0:
		return domain.Errorf(domain.CodeInvalid, "curl session minted: no integrations")
	case e.At.IsZero() || !e.ExpiresAt.After(e.At):
		return domain.Errorf(domain.CodeInvalid, "curl session minted: the expiry must follow the mint")
	}
	return nil
}

// RequestProxied records one request that reached /c/<integration>/ with a valid token: forwarded
// (Status is the upstream's) or refused by the proxy (Status is the proxy's and ErrorCode says why).
type RequestProxied struct {
	RequestID   uuid.UUID `json:"request_id"`
	SessionID   uuid.UUID `json:"session_id"`
	UserID      uuid.UUID `json:"user_id"`
	Integration string    `json:"integration"`
	Method      string    `json:"method"`
	// Path is the path below the integration's proxy base, as sent; QueryKeys are the names of the
	// query parameters, sorted, without their values.
	Path      string   `json:"path"`
	QueryKeys []string `json:"query_keys,omitempty"`
	Status    int      `json:"status"`
	// ErrorCode is empty when the upstream answered and its whole response was relayed; otherwise
	// FORBIDDEN_INTEGRATION, BAD_PATH, METHOD_NOT_ALLOWED, NOT_CONNECTED, REQUEST_TOO_LARGE,
	// RESPONSE_TOO_LARGE, UPSTREAM_ERROR, CLIENT_GONE.
	ErrorCode         string `json:"error_code,omitempty"`
	RequestBytes      int64  `json:"request_bytes"`
	ResponseBytes     int64  `json:"response_bytes"`
	DurationMS        int64  `json:"duration_ms"`
	ConnectionVersion int64  `json:"connection_version,omitempty"`
	// Account is the label of the account whose credential was used, when it is not "default".
	Account string    `json:"account,omitempty"`
	At      time.Time `json:"at"`
}

// EventType implements domain.Event.
func (RequestProxied) EventType() string { return TypeRequestProxied }

// Validate checks that the event is complete before it is appended.
func (e RequestProxied) Validate() error {
	switch {
	case e.RequestID == uuid.Nil || e.SessionID == uuid.Nil:
		return domain.Errorf(domain.CodeInvalid, "request proxied: no request or session id")
	case e.UserID == uuid.Nil:
		return domain.Errorf(domain.CodeInvalid, "request proxied: no user")
	case e.Integration == "" || e.Method == "":
		return domain.Errorf(domain.CodeInvalid, "request proxied: no integration or method")
	case e.Status < 100 || e.Status > 999:
		return domain.Errorf(domain.CodeInvalid, "request proxied: status %d", e.Status)
	case e.At.IsZero():
		return domain.Errorf(domain.CodeInvalid, "request proxied: no time")
	}
	return nil
}

// RequestForwarded records a request the proxy is about to send to the provider with the user's
// credential. It is durable before a byte leaves for the provider, so every request that reached a
// provider is in the log even if the process dies before its outcome is written; the request's
// RequestProxied (same RequestID) follows with the status, sizes and duration.
type RequestForwarded struct {
	RequestID   uuid.UUID `json:"request_id"`
	SessionID   uuid.UUID `json:"session_id"`
	UserID      uuid.UUID `json:"user_id"`
	Integration string    `json:"integration"`
	Method      string    `json:"method"`
	// Path and QueryKeys are as in RequestProxied: the path below the proxy base, the query
	// parameter names without their values.
	Path              string   `json:"path"`
	QueryKeys         []string `json:"query_keys,omitempty"`
	ConnectionVersion int64    `json:"connection_version,omitempty"`
	// Account is the label of the account whose credential was used, when it is not "default".
	Account string    `json:"account,omitempty"`
	At      time.Time `json:"at"`
}

// EventType implements domain.Event.
func (RequestForwarded) EventType() string { return TypeRequestForwarded }

// Validate checks that the event is complete before it is appended.
func (e RequestForwarded) Validate() error {
	switch {
	case e.RequestID == uuid.Nil || e.SessionID == uuid.Nil:
		return domain.Errorf(domain.CodeInvalid, "request forwarded: no request or session id")
	case e.UserID == uuid.Nil:
		return domain.Errorf(domain.CodeInvalid, "request forwarded: no user")
	case e.Integration == "" || e.Method == "" || e.Path == "":
		return domain.Errorf(domain.CodeInvalid, "request forwarded: no integration, method or path")
	case e.At.IsZero():
		return domain.Errorf(domain.CodeInvalid, "request forwarded: no time")
	}
	return nil
}

// Events returns a zero value of every event type of this package, for building a codec.
func Events() []domain.Event {
	return []domain.Event{SessionMinted{}, RequestForwarded{}, RequestProxied{}}
}
