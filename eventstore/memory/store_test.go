package memory_test

import (
	"testing"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/memory"
	"github.com/workbench/workbench/eventstore/storetest"
)

func TestStore(t *testing.T) {
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T) eventstore.Store {
			s := memory.New(nil)
			t.Cleanup(func() { s.Close() })
			return s
		},
	})
}
