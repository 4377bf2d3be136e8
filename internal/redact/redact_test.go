package redact_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/workbench/workbench/internal/redact"
)

const secret = "s3cr3t/T0ken+with=Odd&<bits>"

// b64Region is base64 of prefix+secret+suffix and the range of its characters that hold secret bits.
func b64Region(enc *base64.Encoding, prefix, suffix string) (string, int, int) {
	e := enc.EncodeToString([]byte(prefix + secret + suffix))
	lo := len(prefix) * 8 / 6
	hi := ((len(prefix)+len(secret))*8 + 5) / 6
	return e, lo, hi
}

func TestRedactForms(t *testing.T) {
	r := redact.New([]redact.Secret{{Value: secret, With: "[R]"}}, nil)
	js, _ := json.Marshal(secret)
	type tc struct {
		name   string
		form   string // the text holding the secret
		lo, hi int    // the bytes of form that hold its bits
		noJSON bool   // the form is JSON-escaped already: not checked as a JSON string again
	}
	cases := []tc{
		{name: "literal", form: secret},
		{name: "upper case", form: strings.ToUpper(secret)},
		{name: "lower case", form: strings.ToLower(secret)},
		{name: "JSON escaped", form: string(js[1 : len(js)-1]), noJSON: true},
		{name: "JSON escaped slash", form: strings.ReplaceAll(string(js[1:len(js)-1]), "/", `\/`), noJSON: true},
		{name: "query escaped", form: url.QueryEscape(secret)},
		{name: "query escaped, lower-case hex", form: strings.ToLower(url.QueryEscape(secret))},
		{name: "path escaped", form: url.PathEscape(secret)},
		{name: "hex", form: hex.EncodeToString([]byte(secret))},
		{name: "HEX", form: strings.ToUpper(hex.EncodeToString([]byte(secret)))},
		{name: "split by a space", form: secret[:9] + " " + secret[9:]},
		{name: "split by line breaks", form: secret[:5] + "\r\n" + secret[5:12] + "\n\t" + secret[12:]},
		{name: "split by a JSON line break", form: secret[:7] + `\n` + secret[7:], noJSON: true},
		{name: "hex split by spaces", form: strings.Join(strings.SplitAfter(hex.EncodeToString([]byte(secret)), "7"), " ")},
	}
	for _, enc := range []struct {
		name string
		enc  *base64.Encoding
	}{{"std", base64.StdEncoding}, {"std raw", base64.RawStdEncoding}, {"url", base64.URLEncoding}, {"url raw", base64.RawURLEncoding}} {
		for _, prefix := range []string{"", "a", "ab", "abc", "{\"k\":", "user:"} {
			for _, suffix := range []string{"", "!", "!?", "!?#"} {
				e, lo, hi := b64Region(enc.enc, prefix, suffix)
				cases = append(cases, tc{name: "base64 " + enc.name + " prefix " + prefix + " suffix " + suffix, form: e, lo: lo, hi: hi})
			}
		}
	}
	// In a URL query: base64 with %2B and %2F.
	q, qlo, qhi := b64Region(base64.StdEncoding, "ab", "")
	qe := url.QueryEscape(q)
	cases = append(cases, tc{name: "base64 query-escaped", form: qe, lo: qlo, hi: qhi + (len(qe) - len(q))})
	// MIME: base64 wrapped at 76 characters.
	long := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("x", 50) + secret + strings.Repeat("y", 50)))
	wrapped := long[:76] + "\r\n" + long[76:]
	lo, hi := 50*8/6, ((50+len(secret))*8+5)/6+2
	cases = append(cases, tc{name: "base64 wrapped", form: wrapped, lo: lo, hi: hi})

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.hi == 0 {
				c.lo, c.hi = 0, len(c.form)
			}
			before, after := "the tool said: ", " and then more."
			in := before + c.form + after
			checkRedacted(t, r.String(in), in, len(before)+c.lo, len(before)+c.hi)
			if c.noJSON {
				return
			}
			// Inside a JSON document: redacted the same, and still valid JSON.
			doc, _ := json.Marshal(map[string]string{"text": in})
			out := r.Bytes(doc)
			if !json.Valid(out) {
				t.Fatalf("not JSON after redaction: %s", out)
			}
			var got map[string]string
			json.Unmarshal(out, &got)
			if !strings.Contains(got["text"], "[R]") {
				t.Fatalf("JSON form not redacted: %s", out)
			}
		})
	}
}

// checkRedacted asserts out is in with one span covering [lo, hi) replaced by [R], widened by at most
// a few bytes.
func checkRedacted(t *testing.T, out, in string, lo, hi int) {
	t.Helper()
	i := strings.Index(out, "[R]")
	if i < 0 || strings.Count(out, "[R]") != 1 {
		t.Fatalf("redacted %q\n  to %q", in, out)
	}
	tail := out[i+3:]
	b := len(in) - len(tail)
	if out[:i] != in[:i] || !strings.HasSuffix(in, tail) || i > lo || b < hi || i < lo-4 || b > hi+5 {
		t.Fatalf("redacted %q\n  to %q: replaced [%d,%d), the secret is in [%d,%d)", in, out, i, b, lo, hi)
	}
}

func TestRedactBasic(t *testing.T) {
	r := redact.New(
		[]redact.Secret{{Value: "alice", With: "[R]"}, {Value: "hunter2!", With: "[R]"}},
		[]redact.Secret{{Value: "alice", With: "[R]"}, {Value: "hunter2!", With: "[R]"}})
	basic := base64.StdEncoding.EncodeToString([]byte("alice:hunter2!"))
	in := "Authorization: Basic " + basic + "\n"
	if out := r.String(in); out != "Authorization: Basic [R]\n" {
		t.Fatalf("basic: %q", out)
	}
}

func TestRedactShortAndAbsent(t *testing.T) {
	r := redact.New([]redact.Secret{{Value: "abcde", With: "[R]"}, {Value: "xyz", With: "[R]"}}, nil)
	for in, want := range map[string]string{
		"abcde here":     "[R] here",
		"ABCDE here":     "ABCDE here", // too short for case folding
		"abc de here":    "abc de here",
		"xyz is short":   "xyz is short",
		"nothing at all": "nothing at all",
	} {
		if got := r.String(in); got != want {
			t.Errorf("%q -> %q, want %q", in, got, want)
		}
	}
	in := []byte(`{"text":"nothing to hide"}`)
	if out := r.Bytes(in); &out[0] != &in[0] {
		t.Fatal("an input with nothing to redact was copied")
	}
	var nilR *redact.Redactor
	if nilR.String("abcde") != "abcde" {
		t.Fatal("nil redactor changed its input")
	}
}

// A match next to a JSON escape never leaves half of it behind.
func TestRedactKeepsEscapes(t *testing.T) {
	const s = "QUJDREVGR0hJSktMTU5PUA"
	r := redact.New([]redact.Secret{{Value: "ABCDEFGHIJKLMNOP", With: "[R]"}}, nil)
	for _, in := range []string{
		`{"t":"x\n` + s + `\ny"}`,
		`{"t":"\u0041` + s + `"}`,
		`{"t":"\\` + s + `"}`,
		`{"t":"\"` + s + `\""}`,
	} {
		out := r.Bytes([]byte(in))
		if !json.Valid(out) || !bytes.Contains(out, []byte("[R]")) || bytes.Contains(out, []byte("REVGR0hJSktM")) {
			t.Errorf("%s -> %s", in, out)
		}
	}
}

// BenchmarkRedact1MB redacts a 1 MB tool result holding a handful of secrets, against a baseline of
// one strings.Contains and strings.ReplaceAll per literal value.
func BenchmarkRedact1MB(b *testing.B) {
	secrets := []redact.Secret{
		{Value: "ghp_16C7e42F292c6912E7710c838347Ae178B4a", With: "[R]"},
		{Value: "xoxb-2000000000-3000000000-aBcDeFgHiJkLmNoP", With: "[R]"},
		{Value: "sk-live-0123456789abcdefghijklmnopqrstuv", With: "[R]"},
		{Value: "alice@example.com", With: "[R]"},
		{Value: "correct horse battery staple", With: "[R]"},
	}
	var buf strings.Builder
	line := `{"id":12345,"title":"Fix the flaky test in the scheduler","body":"Steps: run it twenty times; it fails once.\n","labels":["bug","ci"]},`
	for buf.Len() < 1<<20 {
		buf.WriteString(line)
		if buf.Len()%(1<<17) < len(line) {
			buf.WriteString(`"token is ` + secrets[0].Value + ` and ` + base64.StdEncoding.EncodeToString([]byte("x"+secrets[1].Value)) + `",`)
		}
	}
	in := buf.String()
	b.Run("redact", func(b *testing.B) {
		r := redact.New(secrets, secrets)
		r.String("warm up")
		b.SetBytes(int64(len(in)))
		for b.Loop() {
			r.Bytes([]byte(in))
		}
	})
	b.Run("baseline", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		for b.Loop() {
			s := in
			for _, v := range secrets {
				if strings.Contains(s, v.Value) {
					s = strings.ReplaceAll(s, v.Value, v.With)
				}
			}
		}
	})
}

// One Redactor serves concurrent calls; the first one builds the automaton.
func TestRedactConcurrent(t *testing.T) {
	r := redact.New([]redact.Secret{{Value: secret, With: "[R]"}}, nil)
	in := "x " + base64.StdEncoding.EncodeToString([]byte("ab"+secret)) + " y"
	done := make(chan string, 8)
	for range 8 {
		go func() { done <- r.String(in) }()
	}
	for range 8 {
		if out := <-done; !strings.Contains(out, "[R]") {
			t.Fatalf("redacted to %q", out)
		}
	}
}

// A secret whose base64 holds + and / is redacted whole when the encoding is query-escaped.
func TestRedactQueryEscapedBase64(t *testing.T) {
	const v = "tok>>>???>>>???z"
	r := redact.New([]redact.Secret{{Value: v, With: "[R]"}}, nil)
	for _, prefix := range []string{"", "a", "ab"} {
		e := url.QueryEscape(base64.StdEncoding.EncodeToString([]byte(prefix + v)))
		out := r.String("?t=" + e + "&x=1")
		if !strings.HasPrefix(out, "?t=") || !strings.HasSuffix(out, "[R]&x=1") || strings.Contains(out, "%2") || strings.Contains(out, "%3") {
			t.Errorf("prefix %q: %s -> %s", prefix, e, out)
		}
	}
}
