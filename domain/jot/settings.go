package jot

import "github.com/workbench/workbench/domain"

// Access says who may read a jot.
type Access string

const (
	// AccessPublic serves the jot to anyone with its URL.
	AccessPublic Access = "public"
	// AccessPassword serves the jot only after its password is entered.
	AccessPassword Access = "password"
)

// Settings are how a jot is served.
type Settings struct {
	Access Access `json:"access"`
	// PasswordHash is set exactly when Access is AccessPassword. It is a hash (app/jots uses
	// bcrypt), never the password.
	PasswordHash string `json:"password_hash,omitempty"`
	// CORS adds Access-Control-Allow-Origin: * to the jot's responses, so its own sandboxed (opaque
	// origin) scripts can fetch its data files. Public jots only.
	CORS bool `json:"cors,omitempty"`
}

// SettingsPatch changes some settings; nil fields keep their current value.
type SettingsPatch struct {
	Access *Access
	// PasswordHash, when set, is the hash of a new password; setting one without Access gates the jot.
	PasswordHash *string
	CORS         *bool
}

// IsZero reports whether the patch changes nothing.
func (p SettingsPatch) IsZero() bool {
	return p.Access == nil && p.PasswordHash == nil && p.CORS == nil
}

// Apply returns cur changed by p, or a CodeInvalid error naming the rule p would break. The zero
// Settings (a jot with no settings yet) is public without CORS.
func (p SettingsPatch) Apply(cur Settings) (Settings, error) {
	s := cur
	if s.Access == "" {
		s.Access = AccessPublic
	}
	if p.Access != nil {
		switch *p.Access {
		case AccessPublic, AccessPassword:
			s.Access = *p.Access
		default:
			return cur, domain.Errorf(domain.CodeInvalid, "access %q: want %q or %q", *p.Access, AccessPublic, AccessPassword)
		}
	}
	if p.PasswordHash != nil {
		if *p.PasswordHash == "" {
			return cur, domain.Errorf(domain.CodeInvalid, "password: must not be empty")
		}
		if p.Access != nil && *p.Access == AccessPublic {
			return cur, domain.Errorf(domain.CodeInvalid, "a public jot takes no password: leave out the password, or set access to %q", AccessPassword)
		}
		s.Access = AccessPassword
		s.PasswordHash = *p.PasswordHash
	}
	if p.CORS != nil {
		s.CORS = *p.CORS
	}
	switch s.Access {
	case AccessPublic:
		s.PasswordHash = ""
	case AccessPassword:
		if s.PasswordHash == "" {
			return cur, domain.Errorf(domain.CodeInvalid, "a password-gated jot needs a password")
		}
	}
	if s.CORS && s.Access != AccessPublic {
		return cur, domain.Errorf(domain.CodeInvalid, "cors: true is allowed only on public jots; set cors to false to gate this jot with a password")
	}
	return s, nil
}
