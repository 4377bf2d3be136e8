// Package oauth projects the OAuth authorization server's events (domain/oauthdom) into the oauth_clients,
// oauth_grants, oauth_refresh_tokens and oauth_access_tokens tables (migration 0300), and answers the
// lookups fosite's storage makes (a client by id, a grant by code, refresh or access token signature)
// and the portal's question of which clients hold live refresh tokens for a user.
package oauthrm
