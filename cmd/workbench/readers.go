package main

import "github.com/workbench/workbench/projections/identity"

func readerFor(m *Main) identity.Reader { return identity.Reader{DB: m.DB} }
