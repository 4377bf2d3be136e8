package plugins

import (
	"sort"
	"strings"
	"unicode"
)

// DefaultSearchLimit is used when Search is given a limit of zero or less.
const DefaultSearchLimit = 20

// stopWords carry no meaning in a tool search ("list the issues of a repo").
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "to": true, "in": true, "on": true, "for": true,
	"and": true, "or": true, "with": true, "my": true, "me": true, "by": true, "from": true, "is": true,
}

// tokenize lowercases s and splits it into words on anything but letters and digits, dropping stop words.
func tokenize(s string) []string {
	fields := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := fields[:0]
	for _, f := range fields {
		if !stopWords[f] {
			out = append(out, f)
		}
	}
	return out
}

// Search ranks tools against a keyword query (search_tools, workbench-concepts.md: by keyword over name and
// description): an exact name match first, then names starting with the query, then names sharing words with
// the query, then descriptions sharing words with it. Within a tier, tools matching more query words in the
// name, then in the description, come first; remaining ties go to the shorter name, then alphabetical order,
// so the order is deterministic. A query word matches a word it equals or begins ("repo" matches "repos").
// integration, when not empty, keeps only that integration's tools. An empty query lists the tools in name
// order. limit <= 0 means DefaultSearchLimit.
func (r *Registry) Search(query, integration string, limit int) []*Tool {
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	q := strings.ToLower(strings.TrimSpace(query))
	joined := strings.Join(strings.FieldsFunc(q, func(r rune) bool { return r == ' ' || r == '-' || r == '\t' }), "_")
	words := tokenize(q)

	type hit struct {
		tool     *Tool
		tier     int
		nameHits int
		descHits int
	}
	var hits []hit
	for _, t := range r.toolOrder {
		if integration != "" && t.Integration != integration {
			continue
		}
		if q == "" {
			hits = append(hits, hit{tool: t})
			continue
		}
		h := hit{tool: t, nameHits: countMatches(words, t.nameTokens), descHits: countMatches(words, t.descTokens)}
		switch {
		case t.Name == joined:
			h.tier = 0
		case strings.HasPrefix(t.Name, joined):
			h.tier = 1
		case h.nameHits > 0:
			h.tier = 2
		case h.descHits > 0:
			h.tier = 3
		default:
			continue
		}
		hits = append(hits, h)
	}
	if q != "" {
		sort.SliceStable(hits, func(i, j int) bool {
			a, b := hits[i], hits[j]
			if a.tier != b.tier {
				return a.tier < b.tier
			}
			if a.nameHits != b.nameHits {
				return a.nameHits > b.nameHits
			}
			if a.descHits != b.descHits {
				return a.descHits > b.descHits
			}
			if len(a.tool.Name) != len(b.tool.Name) {
				return len(a.tool.Name) < len(b.tool.Name)
			}
			return a.tool.Name < b.tool.Name
		})
	}
	if len(hits) > limit {
		hits = hits[:limit]
	}
	out := make([]*Tool, len(hits))
	for i, h := range hits {
		out[i] = h.tool
	}
	return out
}

// countMatches counts the query words that equal or begin one of the tokens.
func countMatches(words, tokens []string) int {
	n := 0
	for _, w := range words {
		for _, tok := range tokens {
			if strings.HasPrefix(tok, w) {
				n++
				break
			}
		}
	}
	return n
}
