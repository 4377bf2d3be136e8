package signin

import "github.com/workbench/workbench/internal/config"

// Settings are the sign-in settings. internal/config reads them from the environment (Config.SignIn:
// the providers, SIGNIN_ALLOWED_DOMAINS and WORKBENCH_ADMIN_EMAIL); this package only uses them.
type Settings = config.SignIn

// ProviderConfig is one OpenID provider the portal signs in through (config.OIDCProvider).
type ProviderConfig = config.OIDCProvider

// DefaultAdminEmail is the user the startup link signs in when WORKBENCH_ADMIN_EMAIL is unset.
const DefaultAdminEmail = config.DefaultAdminEmail
