package clientaccess

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

func TestKeyAuthorizer(t *testing.T) {
	key := []byte("0123456789abcdef")
	a := KeyAuthorizer(key)
	key[0] = 'X' // the authorizer keeps its own copy
	req, _ := http.NewRequest(http.MethodGet, "https://127.0.0.1:1/dbs/db/colls/c/conflicts", nil)
	if err := a.Authorize(req, "conflicts", "dbs/db/colls/c"); err != nil {
		t.Fatal(err)
	}
	date := req.Header.Get(wire.HeaderDate)
	if _, err := time.Parse(http.TimeFormat, date); err != nil {
		t.Fatalf("x-ms-date %q: %v", date, err)
	}
	got, _ := url.QueryUnescape(req.Header.Get(wire.HeaderAuthorization))
	if want := wire.AuthMasterPrefix + wire.Sign([]byte("0123456789abcdef"), "GET", "conflicts", "dbs/db/colls/c", date); got != want {
		t.Fatalf("Authorization = %q, want %q", got, want)
	}
}

type countingCred struct {
	calls atomic.Int32
	ttl   time.Duration
	fail  bool
}

func (c *countingCred) GetToken(_ context.Context, o policy.TokenRequestOptions) (azcore.AccessToken, error) {
	n := c.calls.Add(1)
	if c.fail {
		return azcore.AccessToken{}, errors.New("no identity")
	}
	return azcore.AccessToken{Token: "tok" + strconv.Itoa(int(n)) + "|" + strings.Join(o.Scopes, ","), ExpiresOn: time.Now().Add(c.ttl)}, nil
}

// TestTokenAuthorizer: tokens are cached until close to expiry, from many goroutines at once.
func TestTokenAuthorizer(t *testing.T) {
	cred := &countingCred{ttl: time.Hour}
	a := TokenAuthorizer(func() (azcore.TokenCredential, error) { return cred, nil }, []string{"https://acct/.default"})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodDelete, "https://acct/dbs/d/colls/c/conflicts/x", nil)
			if err := a.Authorize(req, "conflicts", "dbs/d/colls/c/conflicts/x"); err != nil {
				t.Error(err)
				return
			}
			if got := req.Header.Get(wire.HeaderAuthorization); got != "type=aad&ver=1.0&sig=tok1|https://acct/.default" {
				t.Errorf("Authorization = %q", got)
			}
		}()
	}
	wg.Wait()
	if cred.calls.Load() != 1 {
		t.Fatalf("%d token requests, want 1 (cached)", cred.calls.Load())
	}
	short := &countingCred{ttl: time.Minute} // within the refresh margin: fetched every time
	b := TokenAuthorizer(func() (azcore.TokenCredential, error) { return short, nil }, nil)
	for range 2 {
		req, _ := http.NewRequest(http.MethodGet, "https://acct/", nil)
		if err := b.Authorize(req, "", ""); err != nil {
			t.Fatal(err)
		}
	}
	if short.calls.Load() != 2 {
		t.Fatalf("%d token requests for a token about to expire, want 2", short.calls.Load())
	}
	failing := TokenAuthorizer(func() (azcore.TokenCredential, error) { return &countingCred{fail: true}, nil }, []string{"s"})
	req, _ := http.NewRequest(http.MethodGet, "https://acct/", nil)
	if err := failing.Authorize(req, "", ""); err == nil || req.Header.Get(wire.HeaderAuthorization) != "" {
		t.Fatalf("failing credential: err %v, header %q", err, req.Header.Get(wire.HeaderAuthorization))
	}
}
