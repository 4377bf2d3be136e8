package main

import "github.com/workbench/workbench/projections/identityrm"

func readerFor(m *Main) identityrm.Reader { return identityrm.Reader{DB: m.DB} }
