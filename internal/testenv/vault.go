package testenv

import (
	"database/sql"
	"testing"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/vault"
)

// Vault returns a vault over db and store under a newly generated master key.
func Vault(t testing.TB, db *sql.DB, store eventstore.Store) *vault.Vault {
	t.Helper()
	key, err := vault.GenerateMasterKey()
	if err != nil {
		t.Fatal(err)
	}
	v, err := vault.New(db, store, key, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
