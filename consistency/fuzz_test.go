package consistency_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/consistency"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// FuzzWithSessionToken: any input is either refused with a ValidationError that does not echo
// it, or accepted exactly when wire.ParseSessionTokens accepts it.
func FuzzWithSessionToken(f *testing.F) {
	for _, s := range []string{"0:-1#12", "0:-1#40#0=25#1=15,1:-1#3", "0:5", "", "x", "0:-1#1#0=1#0=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		_, err := consistency.WithSessionToken(context.Background(), "db", "c", tok)
		if tok == "" {
			if err != nil {
				t.Fatalf("empty token: %v", err)
			}
			return
		}
		_, perr := wire.ParseSessionTokens(tok)
		if (err == nil) != (perr == nil) {
			t.Fatalf("%q: WithSessionToken %v, ParseSessionTokens %v", tok, err, perr)
		}
		if err != nil && !errors.Is(err, cosmoserr.ErrInvalidSessionToken) {
			t.Fatalf("%q: %v", tok, err)
		}
	})
}
