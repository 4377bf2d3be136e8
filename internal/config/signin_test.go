package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestSignInFromEnv(t *testing.T) {
	tests := []struct {
		name      string
		env       map[string]string
		providers []string // ids
		domains   []string
		admin     string
		err       string // substring; "" means success
	}{
		{"nothing configured", nil, nil, nil, DefaultAdminEmail, ""},
		{"google", map[string]string{EnvGoogleClientID: "g-id", EnvGoogleClientSecret: "g-secret"}, []string{"google"}, nil, DefaultAdminEmail, ""},
		{"google without secret", map[string]string{EnvGoogleClientID: "g-id"}, nil, nil, "", EnvGoogleClientSecret},
		{"google secret alone", map[string]string{EnvGoogleClientSecret: "g"}, nil, nil, "", EnvGoogleClientID},
		{"keycloak public client", map[string]string{EnvKeycloakIssuer: "https://sso.example.com/realms/acme/", EnvKeycloakClientID: "wb"}, []string{"keycloak"}, nil, DefaultAdminEmail, ""},
		{"keycloak without issuer", map[string]string{EnvKeycloakClientID: "wb"}, nil, nil, "", EnvKeycloakIssuer},
		{"keycloak without client", map[string]string{EnvKeycloakIssuer: "https://sso.example.com/realms/acme"}, nil, nil, "", EnvKeycloakClientID},
		{"keycloak over plain http", map[string]string{EnvKeycloakIssuer: "http://sso.example.com/realms/acme", EnvKeycloakClientID: "wb"}, nil, nil, "", "https"},
		{"keycloak on loopback http", map[string]string{EnvKeycloakIssuer: "http://127.0.0.1:8081/realms/dev", EnvKeycloakClientID: "wb"}, []string{"keycloak"}, nil, DefaultAdminEmail, ""},
		{"keycloak issuer with a query", map[string]string{EnvKeycloakIssuer: "https://sso.example.com/realms/acme?x=1", EnvKeycloakClientID: "wb"}, nil, nil, "", "issuer URL"},
		{"both, google first", map[string]string{EnvGoogleClientID: "g", EnvGoogleClientSecret: "s", EnvKeycloakIssuer: "https://sso.example.com/realms/a", EnvKeycloakClientID: "wb"}, []string{"google", "keycloak"}, nil, DefaultAdminEmail, ""},
		{"allowed domains", map[string]string{EnvAllowedDomains: " Example.com, @corp.example.org ,"}, nil, []string{"example.com", "corp.example.org"}, DefaultAdminEmail, ""},
		{"allowed domain that is an address", map[string]string{EnvAllowedDomains: "ann@example.com"}, nil, nil, "", EnvAllowedDomains},
		{"admin email", map[string]string{EnvAdminEmail: " Ops@Example.com "}, nil, nil, "ops@example.com", ""},
		{"admin email invalid", map[string]string{EnvAdminEmail: "admin@localhost"}, nil, nil, "", EnvAdminEmail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := FromEnv(func(k string) string { return tt.env[k] })
			s := c.SignIn
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one naming %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, p := range s.Providers {
				ids = append(ids, p.ID)
				if p.Issuer == "" || p.ClientID == "" || strings.HasSuffix(p.Issuer, "/") {
					t.Errorf("provider %+v", p)
				}
			}
			if !reflect.DeepEqual(ids, tt.providers) || !reflect.DeepEqual(s.AllowedDomains, tt.domains) || s.AdminEmail != tt.admin {
				t.Fatalf("got providers %v domains %v admin %q", ids, s.AllowedDomains, s.AdminEmail)
			}
		})
	}
}
