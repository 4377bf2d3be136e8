package workbench_test

// The documentation's own checks: the README stays a page a newcomer reads, and every relative link of the
// README and of docs/ leads somewhere, down to the heading a link's #anchor names.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// readmeMaxBytes is the size the README must stay within; everything longer belongs in docs/.
const readmeMaxBytes = 12000

// markdownLink matches an inline Markdown link or image, [text](target) or [text](target "title"), and
// captures the target.
var markdownLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)

// fence opens or closes a fenced code block, whose text is not Markdown.
var fence = regexp.MustCompile("^\\s*(```|~~~)")

// inlineCode is a code span, whose text is not Markdown either.
var inlineCode = regexp.MustCompile("`[^`]*`")

// docLink is one relative link found in a document.
type docLink struct {
	file   string // the document, relative to the repository root
	line   int
	target string
}

func (l docLink) String() string { return fmt.Sprintf("%s:%d: %s", l.file, l.line, l.target) }

// TestDocsLinks: every relative link of README.md and docs/*.md names a file or folder that exists, and a
// link with an #anchor into a Markdown file names one of that file's headings.
func TestDocsLinks(t *testing.T) {
	files := docFiles(t)
	links := 0
	for _, file := range files {
		for _, l := range relativeLinks(t, file) {
			links++
			if msg := checkLink(l); msg != "" {
				t.Errorf("%s: %s", l, msg)
			}
		}
	}
	if links < len(files) {
		t.Fatalf("found only %d relative links in %d documents: the link pattern no longer matches", links, len(files))
	}
}

// TestDocsReadmeSize: the README stays within readmeMaxBytes.
func TestDocsReadmeSize(t *testing.T) {
	info, err := os.Stat("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() > readmeMaxBytes {
		t.Errorf("README.md is %d bytes, over the %d allowed: move the detail into docs/", info.Size(), readmeMaxBytes)
	}
}

// repoPath is a path of the repository written as a code span, such as `internal/signed` or
// `deploy/kubernetes/`: a top-level folder of the tree and what follows it.
var repoPath = regexp.MustCompile("`((?:\\.ci|app|cmd|deploy|domain|eventstore|handlers|internal|migrations|plugins|portal|projections)/[A-Za-z0-9_./-]*)`")

// TestDocsPaths: every file or folder of the repository that README.md or docs/*.md names as a code span
// exists, so a package that moves takes its mentions with it.
func TestDocsPaths(t *testing.T) {
	paths := 0
	for _, file := range docFiles(t) {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(raw), "\n") {
			for _, m := range repoPath.FindAllStringSubmatch(line, -1) {
				paths++
				if _, err := os.Stat(filepath.FromSlash(m[1])); err != nil {
					t.Errorf("%s:%d: names %s, which is not in the repository", file, i+1, m[1])
				}
			}
		}
	}
	if paths < 20 {
		t.Fatalf("found only %d repository paths in the documents: the path pattern no longer matches", paths)
	}
}

// TestDocsAnchors pins GitHub's heading anchors on the headings these documents use.
func TestDocsAnchors(t *testing.T) {
	for heading, want := range map[string]string{
		"Your first agent in five minutes":           "your-first-agent-in-five-minutes",
		"Errors, `isError` and the protocol details": "errors-iserror-and-the-protocol-details",
		"OAuth sign-in (the `dynamic` strategy)":     "oauth-sign-in-the-dynamic-strategy",
		"Kubernetes, systemd and monitoring":         "kubernetes-systemd-and-monitoring",
		"An organisation's own servers":              "an-organisations-own-servers",
		"Compliance API, auditors and the SIEM feed": "compliance-api-auditors-and-the-siem-feed",
		"`workbench doctor`":                         "workbench-doctor",
		"Browser → replica, 1-128 clients":           "browser--replica-1-128-clients",
		"snake_case names":                           "snake_case-names",
	} {
		if got := anchor(heading); got != want {
			t.Errorf("anchor(%q) = %q, want %q", heading, got, want)
		}
	}
}

// TestDocsLinkCheckFails: the checks report what a broken link looks like, so a link pattern or anchor rule
// that stopped matching cannot pass silently.
func TestDocsLinkCheckFails(t *testing.T) {
	for _, tc := range []struct {
		name string
		link docLink
		want string
	}{
		{"missing file", docLink{file: "README.md", line: 1, target: "docs/no-such-page.md"}, "does not exist"},
		{"missing anchor", docLink{file: "README.md", line: 1, target: "docs/testing.md#no-such-heading"}, "no heading"},
		{"missing own anchor", docLink{file: "docs/testing.md", line: 1, target: "#no-such-heading"}, "no heading"},
		{"outside the repository", docLink{file: "README.md", line: 1, target: "../elsewhere.md"}, "outside the repository"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := checkLink(tc.link); !strings.Contains(got, tc.want) {
				t.Errorf("checkLink(%s) = %q, want a message containing %q", tc.link, got, tc.want)
			}
		})
	}
	for _, target := range []string{"docs/testing.md", "docs/testing.md#compatibility", "deploy/"} {
		if got := checkLink(docLink{file: "README.md", line: 1, target: target}); got != "" {
			t.Errorf("checkLink(%s) = %q, want no problem", target, got)
		}
	}
}

// docFiles is README.md and every docs/*.md, relative to the repository root.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no docs/*.md found")
	}
	return append([]string{"README.md"}, files...)
}

// relativeLinks lists the links of file whose target is neither an absolute URL nor an email address. Links
// inside fenced code blocks and code spans are not links.
func relativeLinks(t *testing.T, file string) []docLink {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var links []docLink
	inFence := false
	for i, line := range strings.Split(string(raw), "\n") {
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		for _, m := range markdownLink.FindAllStringSubmatch(inlineCode.ReplaceAllString(line, "``"), -1) {
			target := m[1]
			lower := strings.ToLower(target)
			if strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") || strings.HasPrefix(lower, "mailto:") {
				continue
			}
			links = append(links, docLink{file: filepath.ToSlash(file), line: i + 1, target: target})
		}
	}
	return links
}

// checkLink says what is wrong with a relative link, or "" when it resolves.
func checkLink(l docLink) string {
	path, frag, _ := strings.Cut(l.target, "#")
	dest := l.file
	if path != "" {
		dest = filepath.Join(filepath.Dir(l.file), filepath.FromSlash(path))
		if rel := filepath.Clean(dest); rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "the target is outside the repository"
		}
		if _, err := os.Stat(dest); err != nil {
			return fmt.Sprintf("no such file or folder: %s does not exist", filepath.ToSlash(dest))
		}
	}
	if frag == "" {
		return ""
	}
	if !strings.HasSuffix(dest, ".md") {
		return fmt.Sprintf("#%s points into %s, which is not a Markdown file", frag, filepath.ToSlash(dest))
	}
	anchors, err := headingAnchors(dest)
	if err != nil {
		return err.Error()
	}
	if !anchors[frag] {
		return fmt.Sprintf("%s has no heading whose anchor is #%s", filepath.ToSlash(dest), frag)
	}
	return ""
}

// atxHeading is a Markdown heading line, "# Title" to "###### Title".
var atxHeading = regexp.MustCompile(`^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$`)

// headingAnchors is the set of anchors GitHub gives the headings of a Markdown file, a repeated heading's
// later copies numbered -1, -2, … as GitHub numbers them.
func headingAnchors(file string) (map[string]bool, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	anchors := map[string]bool{}
	seen := map[string]int{}
	inFence := false
	for _, line := range strings.Split(string(raw), "\n") {
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		m := atxHeading.FindStringSubmatch(line)
		if inFence || m == nil {
			continue
		}
		a := anchor(m[1])
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors, nil
}

// anchor is GitHub's anchor for a heading: lowercased, spaces to '-', and every character that is not a
// letter, a digit, '-' or '_' dropped (punctuation, code-span backticks and emphasis markers among them).
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
