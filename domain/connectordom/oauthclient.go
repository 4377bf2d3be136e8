package connectordom

import (
	"strings"
	"time"

	"github.com/workbench/workbench/domain"
)

// TypeClientRegistered names the event of a dynamic OAuth client registration.
const TypeClientRegistered = "connector.oauth_client_registered"

// ClientRegistered stores the public OAuth client a dynamic connector registered at its authorization
// server (RFC 7591) for one redirect URI. A public client has no secret: nothing here is sealed.
type ClientRegistered struct {
	ID          string    `json:"id"`
	Issuer      string    `json:"issuer"`
	RedirectURI string    `json:"redirect_uri"`
	ClientID    string    `json:"client_id"`
	At          time.Time `json:"at"`
}

func (ClientRegistered) EventType() string { return TypeClientRegistered }

// Client is the stored client of an issuer and a redirect URI ("" when none).
func (s State) Client(issuer, redirectURI string) string {
	for _, c := range s.Clients {
		if c.Issuer == issuer && c.RedirectURI == redirectURI {
			return c.ClientID
		}
	}
	return ""
}

// RegisterClient stores a registered client; a client already stored for the issuer and redirect URI
// (another request registered first) records nothing, and the stored one is the connector's.
type RegisterClient struct {
	Event ClientRegistered
}

func (c RegisterClient) decide(s State) ([]domain.Event, error) { return decideClient(s, c) }

// decideClient turns RegisterClient into its event.
func decideClient(s State, c RegisterClient) ([]domain.Event, error) {
	ev := c.Event
	if s.ID == "" || s.ID != ev.ID {
		return nil, domain.Errorf(domain.CodeNotFound, "no connector %q", ev.ID)
	}
	if strings.TrimSpace(ev.Issuer) == "" || strings.TrimSpace(ev.RedirectURI) == "" || strings.TrimSpace(ev.ClientID) == "" || ev.At.IsZero() {
		return nil, domain.Errorf(domain.CodeInvalid, "register client: no issuer, redirect URI, client id or time")
	}
	if s.Client(ev.Issuer, ev.RedirectURI) != "" {
		return nil, nil
	}
	ev.At = ev.At.UTC()
	return []domain.Event{ev}, nil
}
