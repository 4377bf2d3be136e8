package config

import (
	"fmt"
	"strings"
)

// DocPath is where the generated documentation lives, from the module root.
const DocPath = "docs/configuration.md"

// areaNotes are the sentences an area's section opens with, where the table alone would not say enough.
var areaNotes = map[Area]string{
	AreaConnectors: "A plugin's OAuth client is read once the plugins are loaded, for each of them; the rest at start, with everything else.",
	AreaTests:      "Read by the test-support packages (`internal/testenv`), never by the server. Tests read a few more of their own (benchmark scales, golden-file updates); they are described where they are read.",
}

// Markdown is docs/configuration.md: an introduction, then a section per area with a table of its
// variables, in the order of Variables.
func Markdown() string {
	var b strings.Builder
	b.WriteString("# Configuration\n\n")
	b.WriteString("<!-- Generated from internal/config/variables.go by `go generate ./internal/config`; edit the table there, not this file. -->\n\n")
	b.WriteString("Everything is read from the environment once, at start; a bad value stops start-up with a message naming the " +
		"variable and the form expected. An unset variable takes its default; a whole number outside its range is refused, " +
		"not clamped.\n")
	for _, area := range Areas {
		fmt.Fprintf(&b, "\n## %s\n\n", area)
		if note := areaNotes[area]; note != "" {
			b.WriteString(note + "\n\n")
		}
		b.WriteString("| variable | default | meaning |\n|---|---|---|\n")
		for _, v := range Variables {
			if v.Area != area {
				continue
			}
			meaning := v.Meaning
			if v.Whole != nil {
				meaning += "; " + v.Whole.String()
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", v.Name, cell(v.Default), cell(meaning))
		}
	}
	return b.String()
}

// cell keeps a table cell one cell: a pipe inside it is escaped.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
