package connections

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/plugins"
)

// Limits on API-key field values posted from the portal.
const maxFieldLen = 4096

// ConnectAPIKey stores the API-key fields the user posted from the portal, after checking them
// against the manifest: every declared non-optional field present, every injected field present, no
// undeclared field, values without control characters. When the manifest declares a key check
// (auth.apikey.verify), the key is first sent to the provider's "who am I" call: a refusal (401 or
// 403) is CodeInvalid ("<Provider> refused this key: …"), any other failure CodeUnavailable, and in
// both cases nothing is stored. It stores the key as the account labelled account (empty: the
// default account), replacing that account's key.
func (s *Service) ConnectAPIKey(ctx context.Context, user uuid.UUID, integration, account string, fields map[string]string) error {
	in, err := s.integration(integration)
	if err != nil {
		return err
	}
	account, err = s.accountOrDefault(ctx, user, in.Name, account)
	if err != nil {
		return err
	}
	if in.Auth.Mode != plugins.AuthAPIKey || in.Auth.APIKey == nil {
		return domain.Errorf(domain.CodeInvalid, "%s does not use an API key (its auth mode is %s)", in.Name, in.Auth.Mode)
	}
	clean, err := checkFields(in, fields)
	if err != nil {
		return err
	}
	// Every injected field (auth.apikey.inject and each extra_inject) must have a value, whatever
	// the manifest says of it being optional.
	for _, inj := range in.Auth.APIKey.Injections() {
		if clean[inj.Field] == "" {
			return domain.Errorf(domain.CodeInvalid, "%s: %s is required: it is sent on every request", in.Name, inj.Field)
		}
	}
	if _, err := in.APIKeyInjector(clean); err != nil {
		return domain.Errorf(domain.CodeInvalid, "%s: the key to inject is missing", in.Name)
	}
	if err := in.VerifyAPIKey(ctx, clean, s.transport); err != nil {
		s.log.InfoContext(ctx, "API key check failed; nothing stored", "integration", in.Name, "code", domain.ErrorCode(err))
		return err
	}
	sealed, err := s.sealDocument(ctx, user, in.Name, Document{Fields: clean})
	if err != nil {
		return err
	}
	if _, err := s.execute(ctx, user, in.Name, account, connection.Connect{
		UserID: user, Integration: in.Name, Account: account, AuthMode: connection.AuthAPIKey, Credential: sealed, At: s.clock(),
	}); err != nil {
		return fmt.Errorf("connect %s: %w", in.Name, err)
	}
	return nil
}

func checkFields(in *plugins.Integration, fields map[string]string) (map[string]string, error) {
	declared := map[string]plugins.APIKeyField{}
	for _, f := range in.Auth.APIKey.Fields {
		declared[f.Name] = f
	}
	var unknown []string
	for name := range fields {
		if _, ok := declared[name]; !ok {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, domain.Errorf(domain.CodeInvalid, "%s does not declare the field(s) %s", in.Name, quoteList(unknown))
	}
	clean := map[string]string{}
	for _, f := range in.Auth.APIKey.Fields {
		v := strings.TrimSpace(fields[f.Name])
		switch {
		case v == "" && !f.Optional:
			return nil, domain.Errorf(domain.CodeInvalid, "%s: %s (%s) is required", in.Name, f.Label, f.Name)
		case v == "":
			continue
		case len(v) > maxFieldLen:
			return nil, domain.Errorf(domain.CodeInvalid, "%s: %s is longer than %d bytes", in.Name, f.Label, maxFieldLen)
		case strings.IndexFunc(v, unicode.IsControl) >= 0:
			return nil, domain.Errorf(domain.CodeInvalid, "%s: %s contains a control character", in.Name, f.Label)
		}
		clean[f.Name] = v
	}
	return clean, nil
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
