package connector

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"strconv"
	"strings"
)

// MaxPrefixLen bounds a tool prefix.
const MaxPrefixLen = 32

// ToolPrefix generates a connector's tool prefix from its slug (spec connectors.md, Tools of a
// login): lowercase letters and digits, at most 32 characters, with a number added when taken reports
// the prefix taken or reserved.
func ToolPrefix(slug string, taken func(string) bool) string {
	var b strings.Builder
	for _, r := range strings.ToLower(slug) {
		if ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') {
			b.WriteRune(r)
		}
	}
	base := b.String()
	if base == "" {
		base = "mcp"
	}
	if len(base) > MaxPrefixLen {
		base = base[:MaxPrefixLen]
	}
	if !taken(base) {
		return base
	}
	for n := 2; ; n++ {
		suffix := strconv.Itoa(n)
		p := base
		if len(p)+len(suffix) > MaxPrefixLen {
			p = p[:MaxPrefixLen-len(suffix)]
		}
		if !taken(p + suffix) {
			return p + suffix
		}
	}
}

// SanitiseToolName rewrites every character outside [A-Za-z0-9_-] to _ and trims leading and trailing _.
func SanitiseToolName(name string) string {
	out := make([]byte, 0, len(name))
	for _, r := range name {
		if ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') || r == '_' || r == '-' {
			out = append(out, byte(r))
		} else {
			out = append(out, '_')
		}
	}
	return strings.Trim(string(out), "_")
}

// ModelName is the name the model sees: <tool_prefix>_<sanitised name>.
func ModelName(prefix, remote string) string { return prefix + "_" + SanitiseToolName(remote) }

// MaxToolNameLen is the longest tool name the meta-tools take (in characters; model names are ASCII).
const MaxToolNameLen = 128

// ModelNames names a listing's tools for the model: ModelName, unless that is over MaxToolNameLen or
// another listed tool has it too. Then a tool gets a suffix from a hash of its remote name (cut to fit),
// so the name depends on the remote name alone and stays the same from listing to listing; of colliding
// tools, one whose remote name is already its sanitised form keeps the plain name. A remote name with
// no usable character, or one listed a second time, gets "" (the caller skips it). Renamed holds the remote names that got a suffix.
func ModelNames(prefix string, remotes []string) (names []string, renamed []string) {
	plain := make([]string, len(remotes))
	count := map[string]int{}
	exact := map[string]bool{}
	dup := map[string]bool{}
	for i, r := range remotes {
		if SanitiseToolName(r) == "" || dup[r] {
			continue // nothing usable, or listed twice: the first one stands
		}
		dup[r] = true
		plain[i] = ModelName(prefix, r)
		count[plain[i]]++
		if SanitiseToolName(r) == r {
			exact[plain[i]] = true
		}
	}
	names = make([]string, len(remotes))
	taken := map[string]bool{}
	var later []int
	for i, r := range remotes {
		n := plain[i]
		if n == "" {
			continue
		}
		if len(n) <= MaxToolNameLen && (count[n] == 1 || exact[n] && SanitiseToolName(r) == r && !taken[n]) {
			names[i] = n
			taken[n] = true
			continue
		}
		later = append(later, i)
	}
	for _, i := range later {
		for size := 8; size <= 64; size += 8 {
			n := hashedName(plain[i], remotes[i], size)
			if !taken[n] {
				names[i] = n
				taken[n] = true
				renamed = append(renamed, remotes[i])
				break
			}
		}
	}
	return names, renamed
}

// hashedName is name cut to fit MaxToolNameLen with "_" and the first size hex digits of the remote
// name's SHA-256 after it.
func hashedName(name, remote string, size int) string {
	sum := sha256.Sum256([]byte(remote))
	h := hex.EncodeToString(sum[:])[:size]
	if max := MaxToolNameLen - 1 - size; len(name) > max {
		name = name[:max]
	}
	return name + "_" + h
}

// writingVerbs are the verbs that make a listed tool's name a write (rule 4).
var writingVerbs = []string{
	"create", "update", "delete", "remove", "send", "post", "put", "patch", "write", "edit", "modify",
	"insert", "upsert", "add", "set", "merge", "move", "rename", "archive", "close", "cancel", "publish",
	"submit", "approve", "assign", "invite", "upload", "execute", "run", "trigger", "deploy", "destroy",
	"drop", "revoke", "reply", "comment", "transfer", "pay", "purge", "reset", "restore", "share",
}

// HasWritingVerb reports whether a tool name carries a writing verb as one of its words
// (create_issue, deletePage, issues.update).
func HasWritingVerb(name string) bool {
	for _, w := range words(name) {
		for _, v := range writingVerbs {
			if w == v {
				return true
			}
		}
	}
	return false
}

// words splits a name on non-letters and camel-case humps, lowercased.
func words(name string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prevLower := false
	for _, r := range name {
		isUpper := 'A' <= r && r <= 'Z'
		isLower := 'a' <= r && r <= 'z'
		switch {
		case isUpper && prevLower:
			flush()
			cur = append(cur, r)
		case isUpper || isLower:
			cur = append(cur, r)
		default:
			flush()
		}
		prevLower = isLower
	}
	flush()
	return out
}

// Why a tool starts Off or On (spec connectors.md, What starts Off); recorded beside the switch.
const (
	RuleAdminDefault = "admin_default"
	RuleMutating     = "mutating"
	RulePolicy       = "policy_default_off"
	RuleDestructive  = "destructive_hint"
	RuleWritingVerb  = "writing_verb"
	RuleOn           = "default_on"
)

// StartsOff applies the five rules in order to a tool that first appears on a login and returns
// whether it starts On and the rule that decided. adminDefault is the instance admin's default for the
// tool (nil when none). An absent hint decides nothing, and readOnlyHint never turns a tool On.
func StartsOff(m *Manifest, t Tool, adminDefault *bool) (on bool, rule string) {
	if adminDefault != nil {
		return *adminDefault, RuleAdminDefault
	}
	mt, named := m.ManifestTool(t.Name)
	if named && mt.Mutating {
		return false, RuleMutating
	}
	for _, p := range m.Policy.DefaultOff {
		if MatchPattern(p, t.Name) || MatchPattern(p, SanitiseToolName(t.Name)) {
			return false, RulePolicy
		}
	}
	if !named {
		if t.DestructiveHint != nil && *t.DestructiveHint {
			return false, RuleDestructive
		}
		if HasWritingVerb(t.Name) {
			return false, RuleWritingVerb
		}
	}
	return true, RuleOn
}

// MatchPattern matches a policy pattern where * matches any run of characters and nothing else is
// special.
func MatchPattern(pattern, name string) bool {
	// path.Match treats [ ] ? and \ specially: escape them so only * is a wildcard.
	var b strings.Builder
	for _, r := range pattern {
		switch r {
		case '[', ']', '?', '\\':
			b.WriteRune('\\')
		}
		b.WriteRune(r)
	}
	// path.Match's * stops at '/', which a tool name may carry: replace it first.
	ok, err := path.Match(b.String(), strings.ReplaceAll(name, "/", "\x00"))
	return err == nil && ok
}
