package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/browser/replicaauth"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/plugins"
)

// ToolPath is the internal endpoint a replica forwards a browser tool call to, on the replica that
// holds the user's session (handlers/browserhttp serves it; replicaauth signs it).
const ToolPath = "/api/internal/browser/tool"

// maxForwardedResult bounds the answer of a forwarded call (a full-page screenshot is the largest).
const maxForwardedResult = 64 << 20

// errUnreachable: the holder did not answer at all (its process is gone); the call may run here.
var errUnreachable = errors.New("app/browser: the replica holding the session is unreachable")

// ForwardRequest is the body of a forwarded tool call; the user is in the signature.
type ForwardRequest struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// ForwardResponse is the holder's answer: the tool's result or its error, and the host it reached.
type ForwardResponse struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  *ForwardError   `json:"error,omitempty"`
	Target string          `json:"target,omitempty"`
}

// ForwardError is an application error carried between replicas.
type ForwardError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Replica is this replica's own base URL as recorded in BrowserSessionStarted ("" when the server
// runs alone: nothing is forwarded).
func (s *Service) Replica() string { return s.opts.ReplicaURL }

// ReplicaSigner signs and checks requests between replicas (nil when the server runs alone).
func (s *Service) ReplicaSigner() *replicaauth.Signer { return s.opts.Replicas }

// Holder returns the base URL of the other replica whose Chromium holds the user's session, or ""
// when this replica holds it, none does, or the server runs alone. It reads the user's session stream
// (not a read model), so a start recorded by another replica is seen at once.
func (s *Service) Holder(ctx context.Context, user uuid.UUID) (string, error) {
	if s.opts.ReplicaURL == "" || s.opts.Replicas == nil || s.pool.Holds(user.String()) {
		return "", nil
	}
	st, err := s.sessionState(ctx, user)
	if err != nil {
		return "", &domain.Error{Code: domain.CodeUnavailable, Message: "the browser session's record could not be read; retry shortly", Err: err}
	}
	if !st.Running || st.Holder == "" || st.Holder == s.opts.ReplicaURL {
		return "", nil
	}
	return st.Holder, nil
}

// Unreachable reports whether err means the holder did not answer at all: nothing was sent to it or
// it closed the connection before a response (its process is gone), so the work may run here.
func Unreachable(err error) bool {
	if errors.Is(err, errUnreachable) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// routed sends a tool call to the replica holding the user's session, or runs it here when this one
// holds it, none does, or the holder is unreachable (then this replica starts the session and becomes
// the holder).
func (s *Service) routed(name string, local plugins.Handler) plugins.Handler {
	return func(ctx context.Context, rc plugins.Context, raw json.RawMessage) (any, error) {
		user, err := uuid.Parse(rc.UserID())
		if err != nil {
			return local(ctx, rc, raw)
		}
		holder, err := s.Holder(ctx, user)
		if err != nil {
			return nil, err
		}
		if holder != "" {
			res, err := s.forward(ctx, holder, user, name, raw)
			if err == nil {
				plugins.NoteTarget(ctx, res.Target)
				if res.Error != nil {
					return nil, &domain.Error{Code: domain.Code(res.Error.Code), Message: res.Error.Message}
				}
				return res.Result, nil
			}
			if !Unreachable(err) {
				return nil, &domain.Error{Code: domain.CodeUnavailable, Message: name + ": the replica holding this browser session did not answer; retry shortly", Err: err}
			}
			s.log.WarnContext(ctx, "browser session holder unreachable; starting the session here", "holder", holder, "user", user, "err", err)
		}
		return local(ctx, rc, raw)
	}
}

// forward POSTs the call to holder's ToolPath, signed for user.
func (s *Service) forward(ctx context.Context, holder string, user uuid.UUID, tool string, raw json.RawMessage) (ForwardResponse, error) {
	body, err := json.Marshal(ForwardRequest{Tool: tool, Args: raw})
	if err != nil {
		return ForwardResponse{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(holder, "/")+ToolPath, bytes.NewReader(body))
	if err != nil {
		return ForwardResponse{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	s.opts.Replicas.Sign(req, user, body)
	resp, err := s.client.Do(req)
	if err != nil {
		return ForwardResponse{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxForwardedResult+1))
	if err != nil {
		return ForwardResponse{}, err
	}
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound, http.StatusUnauthorized:
		// Not a replica of this server any more (another process took its address): none holds it.
		return ForwardResponse{}, fmt.Errorf("%w: it answered %d", errUnreachable, resp.StatusCode)
	default:
		return ForwardResponse{}, fmt.Errorf("the holder answered %d: %.200s", resp.StatusCode, b)
	}
	var out ForwardResponse
	if len(b) > maxForwardedResult || json.Unmarshal(b, &out) != nil {
		return ForwardResponse{}, fmt.Errorf("the holder's answer is not a tool result")
	}
	return out, nil
}

// RunForwarded runs a browser tool call another replica forwarded here (the signature has named the
// user): always on this replica's pool, never forwarded again. It answers the result as JSON and the
// host the call reached.
func (s *Service) RunForwarded(ctx context.Context, user uuid.UUID, req ForwardRequest) ForwardResponse {
	h, ok := s.localHandlers()[req.Tool]
	if !ok {
		return ForwardResponse{Error: &ForwardError{Code: string(domain.CodeInvalid), Message: fmt.Sprintf("no browser tool %q", req.Tool)}}
	}
	m, _, _ := s.Integration()
	ctx, note := plugins.WithAuditNote(ctx)
	rc := plugins.NewContext(&plugins.Integration{Manifest: m}, plugins.ContextOptions{UserID: user.String(), Logger: s.log})
	out, err := h(ctx, rc, req.Args)
	res := ForwardResponse{Target: note.Target()}
	if err != nil {
		res.Error = &ForwardError{Code: string(domain.ErrorCode(err)), Message: domain.ErrorMessage(err)}
		return res
	}
	b, err := json.Marshal(out)
	if err != nil {
		res.Error = &ForwardError{Code: string(domain.CodeInternal), Message: "the tool's result could not be encoded"}
		return res
	}
	res.Result = b
	return res
}

// newReplicaClient is the client forwarded calls use: no proxy, a short dial, no overall timeout
// (the call's context bounds it).
func newReplicaClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 3 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     90 * time.Second,
	}}
}

// ServeForwarded is RunForwarded on a request body (ForwardRequest as JSON), answering the
// ForwardResponse as JSON; only a body that is not a ForwardRequest is an error.
func (s *Service) ServeForwarded(ctx context.Context, user uuid.UUID, body []byte) ([]byte, error) {
	var req ForwardRequest
	if err := json.Unmarshal(body, &req); err != nil || req.Tool == "" {
		return nil, domain.Errorf(domain.CodeInvalid, "the body must be {\"tool\": ..., \"args\": {...}}")
	}
	if len(req.Args) == 0 {
		req.Args = json.RawMessage(`{}`)
	}
	return json.Marshal(s.RunForwarded(ctx, user, req))
}
