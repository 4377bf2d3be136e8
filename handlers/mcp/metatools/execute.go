package metatools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers/mcp"
	"github.com/workbench/workbench/plugins"
)

// Error codes recorded in ToolExecuted events.
const (
	codeUnknownTool  = "UNKNOWN_TOOL"
	codeNotConnected = "NOT_CONNECTED"
	codeInvalidArgs  = "INVALID_ARGUMENTS"
	codeToolError    = "TOOL_ERROR"
)

type executionArgs struct {
	Executions []struct {
		Tool string          `json:"tool"`
		Args json.RawMessage `json:"args"`
	} `json:"executions"`
}

func (s *Set) executeTools(ctx context.Context, p mcp.Principal, user uuid.UUID, raw json.RawMessage) (any, error) {
	var a executionArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, err
	}
	results := make([]any, len(a.Executions))
	sem := make(chan struct{}, s.opts.Concurrency)
	var wg sync.WaitGroup
	for i, ex := range a.Executions {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			results[i] = s.runOne(ctx, p, user, ex.Tool, ex.Args)
		}()
	}
	wg.Wait()
	return map[string]any{"results": results}, nil
}

// runOne runs one execution and records it. It never fails as a whole: every outcome is a result entry.
func (s *Set) runOne(ctx context.Context, p mcp.Principal, user uuid.UUID, name string, args json.RawMessage) (entry any) {
	start := s.opts.Now()
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	rec := execution.ToolExecuted{ExecutionID: uuid.New(), UserID: user, Via: p.Method, ClientID: p.ClientID, Tool: name}
	rec.ArgsSize, rec.ArgsSHA256 = execution.Digest(args)
	defer func() {
		if v := recover(); v != nil {
			s.log.ErrorContext(ctx, "tool execution panicked", "tool", name, "panic", v)
			entry = s.finish(ctx, rec, start, codeToolError, nil, map[string]any{"error": name + " failed unexpectedly"})
		}
	}()

	t, ok := s.opts.Registry.Tool(name)
	if !ok {
		return s.finish(ctx, rec, start, codeUnknownTool, nil, map[string]any{"error": fmt.Sprintf("Unknown tool: %s. Use search_tools to find tool names.", name)})
	}
	in := t.Owner()
	rec.Integration = in.Name
	access, err := s.opts.Credentials.Access(ctx, user, in)
	if err != nil {
		if domain.ErrorCode(err) == domain.CodeNotConnected && inPortal(in) {
			return s.finish(ctx, rec, start, codeNotConnected, nil, map[string]any{
				"error": "NOT_CONNECTED", "integration": in.Name, "portal_url": s.portalURL(), "message": s.portalNote(in),
			})
		}
		if domain.ErrorCode(err) == domain.CodeNotConnected {
			return s.finish(ctx, rec, start, codeNotConnected, nil, map[string]any{
				"error":       "NOT_CONNECTED",
				"integration": in.Name,
				"message": fmt.Sprintf("%s is not connected for this user. Call connect({\"integration\":%q}), give the user the URL it returns, "+
					"then call wait_for_connection with its connectionId and retry.", in.Name, in.Name),
			})
		}
		s.log.ErrorContext(ctx, "credential access failed", "tool", name, "integration", in.Name, "err", err)
		return s.finish(ctx, rec, start, codeToolError, nil, map[string]any{"error": fmt.Sprintf("%s: %s", name, safeMessage(err))})
	}
	rec.ConnectionVersion = access.ConnectionVersion
	validated, err := plugins.ValidateArgs(t, args)
	if err != nil {
		return s.finish(ctx, rec, start, codeInvalidArgs, nil, map[string]any{"error": err.Error()})
	}
	rc := plugins.NewContext(in, plugins.ContextOptions{
		UserID: user.String(), Injector: access.Injector, GetToken: access.GetToken, Credential: access.Credential,
		Logger: s.log, Transport: s.opts.Transport,
	})
	result, err := s.opts.Registry.Execute(ctx, t, rc, validated)
	if err != nil {
		return s.finish(ctx, rec, start, codeToolError, nil, map[string]any{"error": safeMessage(err)})
	}
	return s.finish(ctx, rec, start, "", result, map[string]any{"result": result})
}

// safeMessage is the caller-safe text of an error: an application error's message, never a cause that
// might carry a secret or an internal detail.
func safeMessage(err error) string {
	var de *domain.Error
	if errors.As(err, &de) {
		return de.Message
	}
	return "the tool failed; the error was logged"
}

// finish records the execution and returns its result entry, or an error entry when the record could
// not be appended: no result leaves without its audit record.
func (s *Set) finish(ctx context.Context, rec execution.ToolExecuted, start time.Time, code string, result json.RawMessage, entry map[string]any) any {
	now := s.opts.Now()
	rec.At = now.UTC()
	rec.DurationMS = now.Sub(start).Milliseconds()
	rec.Success = code == ""
	rec.ErrorCode = code
	if result != nil {
		rec.ResultSize, rec.ResultSHA256 = execution.Digest(result)
	}
	if err := s.record(ctx, rec); err != nil {
		s.log.ErrorContext(ctx, "audit append failed; withholding the result", "tool", rec.Tool, "execution", rec.ExecutionID, "err", err)
		return map[string]any{"error": "The audit record of this execution could not be written, so its outcome is withheld. It may have run; check before retrying."}
	}
	return entry
}

func (s *Set) record(ctx context.Context, rec execution.ToolExecuted) error {
	if err := rec.Validate(); err != nil {
		return err
	}
	typ, sv, data, err := s.codec.Encode(rec)
	if err != nil {
		return err
	}
	md := eventstore.Metadata{Actor: rec.UserID.String(), MCPClient: rec.ClientID, CorrelationID: rec.ExecutionID.String(), Time: rec.At}
	// The append runs even if the caller has gone: the tool has run, and its record must not be lost.
	_, err = s.opts.Store.Append(context.WithoutCancel(ctx), execution.StreamName(rec.ExecutionID), eventstore.NoStream,
		eventstore.EventData{ID: uuid.New(), Type: typ, SchemaVersion: sv, Data: data, Metadata: md})
	return err
}
