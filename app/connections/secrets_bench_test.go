package connections

import (
	"strings"
	"testing"
	"time"
)

// BenchmarkCallRedaction is what redaction adds to one OAuth tool call: building the Access's
// redactor (the access token, the stored refresh token, the client secret, the client id as a Basic
// half) and scanning the result once, for a typical 1 KB answer and a 1 MB one.
func BenchmarkCallRedaction(b *testing.B) {
	h := &held{}
	h.add("s3cret-of-the-oauth-client-0123456789")
	h.pair("s3cret-of-the-oauth-client-0123456789", "client-123")
	h.document(Document{AccessToken: "gho_16C7e42F292c6912E7710c838347Ae178B4a", RefreshToken: "ghr_1B4a2e77838347a7E420ce178F2E7c6912E169246"})
	acc := Access{held: h}
	cached := &held{cache: newRedactors(time.Now)}
	cached.add(h.secrets...)
	cached.pair(h.pairs...)
	line := `{"login":"octocat","id":1,"node_id":"MDQ6VXNlcjE=","avatar_url":"https://github.com/images/error/octocat_happy.gif","type":"User","site_admin":false},`
	small := []byte(strings.Repeat(line, 1024/len(line)+1))
	large := []byte(strings.Repeat(line, (1<<20)/len(line)+1))
	for _, c := range []struct {
		name string
		in   []byte
	}{{"1KB", small}, {"1MB", large}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.in)))
			b.ReportAllocs()
			for b.Loop() {
				acc.Redactor().Bytes(c.in)
			}
		})
		// The same values on later calls: the Service's cache gives the redactor already built.
		b.Run(c.name+"/cached", func(b *testing.B) {
			b.SetBytes(int64(len(c.in)))
			b.ReportAllocs()
			for b.Loop() {
				Access{held: cached}.Redactor().Bytes(c.in)
			}
		})
	}
	b.Run("none", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Access{}.Redactor().Bytes(small)
		}
	})
}
