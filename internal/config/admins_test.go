package config

import (
	"reflect"
	"strings"
	"testing"
)

// TestAdminsFromEnv: WORKBENCH_ADMINS is normalised and de-duplicated; unset, the one admin is the
// WORKBENCH_ADMIN_EMAIL user; a malformed address stops the start naming the variable.
func TestAdminsFromEnv(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want []string
		err  string
	}{
		{"default", nil, []string{DefaultAdminEmail}, ""},
		{"admin email", map[string]string{EnvAdminEmail: "Ops@Example.com"}, []string{"ops@example.com"}, ""},
		{"list", map[string]string{EnvAdmins: " Ada@Example.com, bob@example.com,,ada@example.com", EnvAdminEmail: "x@example.com"}, []string{"ada@example.com", "bob@example.com"}, ""},
		{"blank list", map[string]string{EnvAdmins: "  ", EnvAdminEmail: "x@example.com"}, []string{"x@example.com"}, ""},
		{"only commas", map[string]string{EnvAdmins: ", ,"}, nil, EnvAdmins},
		{"malformed", map[string]string{EnvAdmins: "ada@example.com, not-an-email"}, nil, "not-an-email"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := FromEnv(func(k string) string { return tt.env[k] })
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), EnvAdmins) {
					t.Fatalf("err = %v, want one naming %s and %q", err, EnvAdmins, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(c.Admins, tt.want) {
				t.Fatalf("Admins = %v, %v; want %v", c.Admins, err, tt.want)
			}
			if !c.IsAdmin(strings.ToUpper(tt.want[0])) || c.IsAdmin("eve@example.com") || c.IsAdmin("") {
				t.Fatalf("IsAdmin disagrees with %v", c.Admins)
			}
		})
	}
}
