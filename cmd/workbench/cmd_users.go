package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"net/http"

	"github.com/workbench/workbench/app/compliance"
	"github.com/workbench/workbench/app/portalsessions"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers/authn"
	"github.com/workbench/workbench/handlers/erasure"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/projections/identityrm"
)

const usersUsage = `usage: workbench users erase --email EMAIL

Erases a user (GDPR art. 17): appends identity.user_erased, after which every read model shows a
pseudonym ("erased-<hex>") instead of the email, no display name, no provider account labels, and no
live API key; then shreds the user's data key, so every secret sealed for them (API keys, connection
credentials) is unreadable for good. The log is not rewritten: the audit chain still verifies, and
the audit records keep their counts, times and tools. Prints the erasure as JSON.
`

// eraser is the erasure use case over m. wait is what ending the user's portal sessions waits for: the
// projections runner in the server; nothing in the CLI, whose read models catch up when the server runs.
func (m *Main) eraser(wait portalsessions.Waiter) (*compliance.Eraser, error) {
	sessions, err := portalsessions.New(m.Store, wait, nil)
	if err != nil {
		return nil, err
	}
	return &compliance.Eraser{Store: m.Store, Vault: m.Vault, Sessions: sessions, PseudonymKey: m.deriveKey("erasure-pseudonym"),
		InviteeKey: m.inviteeKey}, nil
}

// cmdUsers: `users erase --email E`.
func cmdUsers(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "erase" {
		fmt.Fprint(stderr, usersUsage)
		return errUsage
	}
	fs := flag.NewFlagSet("users erase", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usersUsage) }
	email := fs.String("email", "", "the user's email")
	if err := fs.Parse(args[1:]); err != nil {
		return errUsage
	}
	if *email == "" || fs.NArg() > 0 {
		fmt.Fprint(stderr, "workbench users erase: --email is required, and nothing else\n")
		return errUsage
	}
	m, err := openMain(ctx, getenv, stderr, nil)
	if err != nil {
		return err
	}
	defer m.Close()
	eraser, err := m.eraser(noWait{})
	if err != nil {
		return err
	}
	res, err := eraser.EraseUser(ctx, *email, eventstore.Metadata{Actor: "cli", Time: time.Now().UTC()})
	if err != nil {
		return fmt.Errorf("users erase: %s", describe(err))
	}
	if res.AlreadyErased {
		fmt.Fprintf(stderr, "user %s was already erased; its data key is shredded\n", res.UserID)
	} else {
		fmt.Fprintf(stderr, "user %s erased (now %s); the read models drop the personal data when the projections reach position %s\n",
			res.UserID, res.Pseudonym, res.Position)
	}
	return json.NewEncoder(stdout).Encode(res)
}

// erasureHandler is POST /api/admin/users/erase: instance admins (Config.Admins: WORKBENCH_ADMINS, else WORKBENCH_ADMIN_EMAIL) erase a user,
// authenticated by API key or portal session; the answer waits for the read models.
func (m *Main) erasureHandler(keys *identityrm.KeyLookup, sessions *websession.Manager) (http.Handler, error) {
	eraser, err := m.eraser(m.Runner)
	if err != nil {
		return nil, err
	}
	return erasure.Handler(erasure.Options{
		Eraser: eraser,
		Auth: authn.Chain{
			authn.APIKeys{Reader: keys},
			authn.PortalSessions{Sessions: sessions, Users: identityrm.Reader{DB: m.DB}},
		},
		Admins:  m.Config.Admins,
		WaitFor: m.Runner.WaitFor,
		Logger:  m.Logger,
	}), nil
}
