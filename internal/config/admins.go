package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/workbench/workbench/domain/identitydom"
)

// EnvAdmins names the instance admins: comma-separated email addresses.
const EnvAdmins = "WORKBENCH_ADMINS"

// readAdmins reads WORKBENCH_ADMINS into normalised, de-duplicated emails, in the order given. When it
// is unset or blank the one admin is fallback (the WORKBENCH_ADMIN_EMAIL user). A malformed address is
// an error naming the variable and the address.
func readAdmins(getenv func(string) string, fallback string) ([]string, error) {
	list := reader(getenv).text(EnvAdmins)
	if list == "" {
		list = fallback
	}
	var out []string
	for _, part := range strings.Split(list, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		e, err := identitydom.NormalizeEmail(part)
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %w", EnvAdmins, strings.TrimSpace(part), err)
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s names no email address", EnvAdmins)
	}
	return out, nil
}

// IsAdmin reports whether email (any case) is one of the instance admins (Config.Admins).
func (c Config) IsAdmin(email string) bool {
	e := strings.ToLower(strings.TrimSpace(email))
	return e != "" && slices.Contains(c.Admins, e)
}
