package oauthhttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers/authn"
	"github.com/workbench/workbench/projections/identityrm"
)

// The consent page offers the user's agents; the grant, its access tokens and the tokens a refresh
// issues act as the agent chosen. A grant that names none acts as the default agent, as every grant
// made before agents existed does; an agent that is not the user's is refused.
func TestConsentChoosesTheAgent(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	md := eventstore.Metadata{Actor: "test"}
	if err := e.orgs.SignedIn(ctx, e.user, "ada@example.com", md); err != nil {
		t.Fatal(err)
	}
	acme, err := e.orgs.Create(ctx, e.user, "ada@example.com", "Acme", md)
	if err != nil {
		t.Fatal(err)
	}
	agent, err := e.orgs.CreateAgent(ctx, e.user, acme, "claude", uuid.Nil, md)
	if err != nil {
		t.Fatal(err)
	}
	// Bob's agent, which Ada may not pick.
	bobCookie := e.newSession("bob@example.com")
	bob, _ := e.sessions.User(&http.Request{Header: http.Header{"Cookie": {bobCookie.String()}}})
	bobOrg, err := e.orgs.Create(ctx, bob, "bob@example.com", "Bob's", md)
	if err != nil {
		t.Fatal(err)
	}
	bobAgent, err := e.orgs.CreateAgent(ctx, bob, bobOrg, "mine", uuid.Nil, md)
	if err != nil {
		t.Fatal(err)
	}

	authenticate := func(access string) (uuid.UUID, error) {
		req := httptest.NewRequest("POST", "/mcp", nil)
		req.Header.Set("Authorization", "Bearer "+access)
		p, err := authn.AccessTokens{Verifier: e.oauth, Users: identityrm.Reader{DB: e.db}}.Authenticate(req)
		return p.AgentID, err
	}
	principal := func(access string) uuid.UUID {
		t.Helper()
		agent, err := authenticate(access)
		if err != nil {
			t.Fatalf("authenticate: %v", err)
		}
		return agent
	}
	run := func(agentField string) (response, string, string) {
		t.Helper()
		redirect := "http://127.0.0.1:9/cb"
		clientID := e.register(redirect)
		verifier, challenge := pkce()
		params := e.authParams(clientID, redirect, challenge)
		page := e.consentPage(params, e.cookie)
		if page.status != 200 || !strings.Contains(string(page.body), `value="`+agent.String()+`"`) || !strings.Contains(string(page.body), "claude (Acme)") {
			t.Fatalf("the consent page does not offer the agent: %d %s", page.status, page.body)
		}
		if strings.Contains(string(page.body), bobAgent.String()) {
			t.Fatal("the consent page offers another user's agent")
		}
		form := params
		if agentField != "" {
			form = cloneValues(params)
			form.Set("agent_id", agentField)
		}
		res := e.decide(form, csrfOf(t, page), "allow", e.cookie, e.public)
		return res, clientID, verifier
	}

	t.Run("the chosen agent, through a refresh", func(t *testing.T) {
		res, clientID, verifier := run(agent.String())
		code := redirectQuery(t, res).Get("code")
		tok := tokensOf(t, e.exchange(clientID, "http://127.0.0.1:9/cb", code, verifier))
		if got := principal(tok.access); got != agent {
			t.Fatalf("the access token acts as %s, want %s", got, agent)
		}
		again := tokensOf(t, e.refresh(clientID, tok.refresh))
		if got := principal(again.access); got != agent {
			t.Fatalf("the refreshed access token acts as %s, want %s", got, agent)
		}

		// Deleting the agent retires the grant: its access token is refused at once, and its refresh
		// token gets nothing.
		if err := e.orgs.DeleteAgent(ctx, e.user, acme, agent, md); err != nil {
			t.Fatal(err)
		}
		if _, err := authenticate(again.access); domain.ErrorCode(err) != domain.CodeUnauthenticated {
			t.Fatalf("the deleted agent's access token: %v, want refused", err)
		}
		if res := e.refresh(clientID, again.refresh); res.status != http.StatusBadRequest {
			t.Fatalf("the deleted agent's refresh token: %d %s", res.status, res.body)
		}
	})
	agent, err = e.orgs.CreateAgent(ctx, e.user, acme, "claude", uuid.Nil, md)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("no choice is the default agent", func(t *testing.T) {
		res, clientID, verifier := run("")
		code := redirectQuery(t, res).Get("code")
		tok := tokensOf(t, e.exchange(clientID, "http://127.0.0.1:9/cb", code, verifier))
		if got := principal(tok.access); got != identitydom.DefaultAgentID(e.user) {
			t.Fatalf("the access token acts as %s, want the default agent", got)
		}
	})
	t.Run("another user's agent is refused", func(t *testing.T) {
		res, _, _ := run(bobAgent.String())
		if res.status != http.StatusBadRequest {
			t.Fatalf("consent naming bob's agent: %d %s", res.status, res.body)
		}
	})
}

func cloneValues(v map[string][]string) map[string][]string {
	out := make(map[string][]string, len(v))
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}
