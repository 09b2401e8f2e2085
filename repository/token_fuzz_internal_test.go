package repository

import (
	"errors"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
)

// FuzzDecodeToken: whatever an end user sends as a page token, decodeToken either refuses it with
// cosmoserr.ErrInvalidToken or returns a continuation that can travel as an HTTP header value; and a token
// Page made for a printable continuation decodes back to it.
func FuzzDecodeToken(f *testing.F) {
	q := SQL("SELECT * FROM c WHERE c.type = @type").Partition(partitionkey.Of("c1"))
	rq, err := q.render("order", false, 1, nil)
	if err != nil {
		f.Fatal(err)
	}
	c := &core{identity: []byte("container\x00c")}
	text := c.bindToken(q, rq)
	f.Add(c.encodeToken(text, `{"token":"+RID:~abc==#RT:1#TRC:2","range":{"min":"","max":"FF"}}`))
	f.Add(c.encodeToken(text, "\n"))
	f.Add("")
	f.Add("AAAA")
	f.Fuzz(func(t *testing.T, token string) {
		cont, err := c.decodeToken(text, token)
		if err != nil {
			if !errors.Is(err, cosmoserr.ErrInvalidToken) {
				t.Fatalf("c.decodeToken(%q) = %v, not cosmoserr.ErrInvalidToken", token, err)
			}
			return
		}
		for i := 0; i < len(cont); i++ {
			if c := cont[i]; c < 0x20 || c > 0x7e {
				t.Fatalf("c.decodeToken(%q) returned a continuation with byte %#x", token, c)
			}
		}
		if again, err := c.decodeToken(text, c.encodeToken(text, cont)); err != nil || again != cont {
			t.Fatalf("round trip of %q = %q, %v", cont, again, err)
		}
	})
}
