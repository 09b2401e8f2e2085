package crosspartition

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/internal/tokenmac"
)

// firstToken returns the token after the first page of query.
func firstToken(t *testing.T, x *Container, query string, params []azcosmos.QueryParameter) string {
	t.Helper()
	p := x.NewQueryItemsPager(query, &azcosmos.QueryOptions{QueryParameters: params, PageSizeHint: 3})
	resp, err := p.NextPage(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if resp.ContinuationToken == nil {
		t.Fatal("no token after the first page")
	}
	return *resp.ContinuationToken
}

func TestTokensAreValidatedBeforeAnyRequest(t *testing.T) {
	s, c := newContainer(t, 4, nil)
	put(t, c, docs(40)...)
	x := mustNew(t, c)
	const q = "SELECT c.id FROM c WHERE c.pk = @tenant OR c.n >= @n ORDER BY c.n"
	ps := []azcosmos.QueryParameter{{Name: "@tenant", Value: "p1"}, {Name: "@n", Value: 3}}
	tok := firstToken(t, x, q, ps)
	if strings.ContainsAny(tok, "+/=") {
		t.Fatalf("token %q is not URL-safe", tok)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(tok)
	flipped := []byte(string(raw))
	flipped[len(flipped)/2] ^= 0x01
	other := []azcosmos.QueryParameter{{Name: "@tenant", Value: "p2"}, {Name: "@n", Value: 3}}
	cases := []struct {
		name   string
		query  string
		params []azcosmos.QueryParameter
		token  string
	}{
		{"another tenant's parameters", q, other, tok},
		{"another query", "SELECT c.id FROM c ORDER BY c.n", nil, tok},
		{"tampered", q, ps, base64.RawURLEncoding.EncodeToString(flipped)},
		{"truncated", q, ps, tok[:len(tok)/2]},
		{"not base64", q, ps, "%%%"},
		{"garbage", q, ps, base64.RawURLEncoding.EncodeToString([]byte(`{"v":1}`))},
		{"the SDK's own continuation", q, ps, `{"token":"+RID:~abc#RT:1","range":{"min":"","max":"FF"}}`},
	}
	for _, tc := range cases {
		s.ResetRequests()
		p := x.NewQueryItemsPager(tc.query, &azcosmos.QueryOptions{QueryParameters: tc.params, ContinuationToken: &tc.token})
		_, err := p.NextPage(context.Background())
		var te *cosmoserr.ValidationError
		if !errors.Is(err, cosmoserr.ErrInvalidToken) || !errors.As(err, &te) {
			t.Errorf("%s: %v, want cosmoserr.ErrInvalidToken", tc.name, err)
		}
		if n := s.Requests(cosmostest.RequestFilter{}); n != 0 {
			t.Errorf("%s: %d requests sent before the token was refused", tc.name, n)
		}
	}
	// The real token still resumes.
	p := x.NewQueryItemsPager(q, &azcosmos.QueryOptions{QueryParameters: ps, ContinuationToken: &tok})
	if _, err := p.NextPage(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestNotResumableShapesSaySo(t *testing.T) {
	_, c := newContainer(t, 4, nil)
	put(t, c, docs(40)...)
	x := mustNew(t, c)
	const q = "SELECT c.s, COUNT(1) AS n FROM c GROUP BY c.s"
	p := x.NewQueryItemsPager(q, &azcosmos.QueryOptions{PageSizeHint: 2})
	resp, err := p.NextPage(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Items) != 2 || resp.ContinuationToken == nil {
		t.Fatalf("first page: %d items, token %v", len(resp.Items), resp.ContinuationToken)
	}
	// The same pager continues in memory ...
	n := len(resp.Items)
	for p.More() {
		resp, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		n += len(resp.Items)
	}
	if n != 5 {
		t.Fatalf("%d groups, want 5", n)
	}
	// ... but its token cannot start another.
	p = x.NewQueryItemsPager(q, &azcosmos.QueryOptions{ContinuationToken: resp.ContinuationToken})
	if _, err := p.NextPage(context.Background()); !errors.Is(err, cosmoserr.ErrNotResumable) {
		t.Fatalf("resuming GROUP BY: %v, want cosmoserr.ErrNotResumable", err)
	}
}

func FuzzDecodeToken(f *testing.F) {
	ident := []byte("container\x00c")
	bind := binding(ident, "SELECT * FROM c ORDER BY c.n", nil)
	good := (&token{Bind: bind, Kind: kindOrderBy, Take: -1, Order: &orderResume{
		Items: []byte(`[{"item":1}]`), Rid: "AAAAAAAAAAABAAAAAAAAAA==", N: 1, Min: "", Max: "20", Dir: 1,
	}}).encode(nil, ident)
	plain := (&token{Bind: bind, Kind: kindPlain, Take: -1, Ranges: []tokenRange{
		{ID: "0", Min: "", Max: "20", Open: true, Tok: "x", N: 2, Seen: packHashes([]uint64{1, 2})},
		{ID: "1", Min: "20", Max: "FF", Tok: "y", Drop: 1},
	}, Groups: []tokenGroup{{Hashes: packHashes([]uint64{3})}}}).encode(nil, ident)
	f.Add(plain)
	f.Add(good)
	f.Add("")
	f.Add("e30")
	f.Add((&token{Bind: bind, Kind: kindNone}).encode(nil, ident))
	f.Fuzz(func(t *testing.T, s string) {
		tok, err := decodeToken(s, bind, nil, ident)
		if err != nil {
			if !errors.Is(err, cosmoserr.ErrInvalidToken) {
				t.Fatalf("error %v is not cosmoserr.ErrInvalidToken", err)
			}
			return
		}
		if tok.Bind != bind {
			t.Fatal("accepted a token of another binding")
		}
		// A token that decodes re-encodes to one that decodes the same way.
		again, err := decodeToken(tok.encode(nil, ident), bind, nil, ident)
		if err != nil || len(again.Ranges) != len(tok.Ranges) {
			t.Fatalf("re-encoded token: %v", err)
		}
	})
}

// forge decodes tok as an attacker would (the format is base64url JSON and an unkeyed tag whose
// key is in the source), changes it and re-encodes it with a recomputed tag for c's container.
func forge(t *testing.T, c *Container, tok string, change func(*token)) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(raw) < tokenmac.TagSize {
		t.Fatal(err)
	}
	var x token
	if err := json.Unmarshal(raw[:len(raw)-tokenmac.TagSize], &x); err != nil {
		t.Fatal(err)
	}
	change(&x)
	return x.encode(nil, c.identity)
}

func TestForgedHeaderFieldsAreRefusedBeforeAnyRequest(t *testing.T) {
	s, c := newContainer(t, 4, nil)
	put(t, c, docs(40)...)
	x := mustNew(t, c)
	const q = "SELECT c.id FROM c WHERE c.n >= @n"
	ps := []azcosmos.QueryParameter{{Name: "@n", Value: 0}}
	tok := firstToken(t, x, q, ps)
	setTok := func(v string) func(*token) {
		return func(x *token) { x.Ranges[0].Tok, x.Ranges[0].Open, x.Ranges[0].Done = v, true, false }
	}
	setID := func(v string) func(*token) { return func(x *token) { x.Ranges[0].ID = v } }
	cases := []struct {
		name   string
		change func(*token)
	}{
		{"continuation with CR LF", setTok("abc\r\nX-Injected: 1")},
		{"continuation with LF", setTok("abc\n")},
		{"continuation with NUL", setTok("a\x00b")},
		{"continuation with DEL", setTok("a\x7fb")},
		{"continuation not ASCII", setTok("abcé")},
		{"continuation too long", setTok(strings.Repeat("a", 1<<16))},
		{"range id with CR LF", setID("0\r\nX-Injected: 1")},
		{"range id not digits", setID("0a")},
		{"range id with space", setID(" 0")},
		{"range id negative", setID("-1")},
		{"range id too long", setID(strings.Repeat("1", 64))},
	}
	for _, tc := range cases {
		forged := forge(t, x, tok, tc.change)
		s.ResetRequests()
		// The deadline only bounds a failing run: an unrefused token fails in net/http and
		// azcore retries it as a transport error for seconds.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		p := x.NewQueryItemsPager(q, &azcosmos.QueryOptions{QueryParameters: ps, ContinuationToken: &forged})
		_, err := p.NextPage(ctx)
		cancel()
		var te *cosmoserr.ValidationError
		if !errors.Is(err, cosmoserr.ErrInvalidToken) || !errors.As(err, &te) {
			t.Errorf("%s: %v, want cosmoserr.ErrInvalidToken", tc.name, err)
		}
		if n := s.Requests(cosmostest.RequestFilter{}); n != 0 {
			t.Errorf("%s: %d requests sent before the token was refused", tc.name, n)
		}
	}
	// The same forging with values the service could have issued still resumes: the refusals
	// above are for the bytes, not for re-encoding.
	ok := forge(t, x, tok, func(*token) {})
	p := x.NewQueryItemsPager(q, &azcosmos.QueryOptions{QueryParameters: ps, ContinuationToken: &ok})
	if _, err := p.NextPage(context.Background()); err != nil {
		t.Fatal(err)
	}
}
