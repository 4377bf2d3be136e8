package signin

import (
	"strings"
	"testing"
)

func TestSafeNext(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", "/"},
		{"root", "/", "/"},
		{"path and query", "/oauth/authorize?client_id=a&state=b", "/oauth/authorize?client_id=a&state=b"},
		{"absolute URL", "https://evil.example/", "/"},
		{"scheme-relative", "//evil.example/x", "/"},
		{"backslash host", "/\\evil.example", "/"},
		{"relative path", "settings", "/"},
		{"javascript", "javascript:alert(1)", "/"},
		{"control character", "/a\r\nSet-Cookie: x=1", "/"},
		{"tab", "/\t/evil.example", "/"},
		{"too long", "/" + strings.Repeat("a", maxNextLen), "/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SafeNext(tt.in); got != tt.want {
				t.Fatalf("SafeNext(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCleanName(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "  Ann Lee ", "Ann Lee"},
		{"control characters", "Ann\x00 Lee\n", "Ann Lee"},
		{"invalid UTF-8", "Ann\xff", "Ann"},
		{"too long", strings.Repeat("é", 300), strings.Repeat("é", 200)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cleanName(tt.in); got != tt.want {
				t.Fatalf("cleanName(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
