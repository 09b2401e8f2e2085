package retry_test

import (
	"context"
	"errors"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

// TestUnsendableRequestIsNotAFailure sends many requests that cannot be sent at all (a
// continuation token or header value with a newline, as an end user's page token could carry) to
// a single-region account: each fails before reaching the network with an error matching
// ErrBadRequest, none counts against a breaker, and reads and writes keep working.
func TestUnsendableRequestIsNotAFailure(t *testing.T) {
	e := newEnv(t, envRegions{}, retry.Options{}, cosmostest.WithRegions("West US"))
	ctx := context.Background()
	bad := "\n"
	for i := range 3 * retry.DefaultReadFailureThreshold {
		pager := e.cc.NewQueryItemsPager("SELECT * FROM c", azcosmos.NewPartitionKeyString("p"), &azcosmos.QueryOptions{ContinuationToken: &bad})
		if _, err := pager.NextPage(ctx); !errors.Is(err, cosmoserr.ErrBadRequest) {
			t.Fatalf("query %d with a bad continuation = %v, want ErrBadRequest", i, err)
		}
		hctx := policy.WithHTTPHeader(ctx, map[string][]string{"x-ms-session-token": {"0:1\r\nx-evil: 1"}})
		if _, err := e.cc.UpsertItem(hctx, azcosmos.NewPartitionKeyString("p"), []byte(`{"id":"w","pk":"p"}`), nil); !errors.Is(err, cosmoserr.ErrBadRequest) {
			t.Fatalf("write %d with a bad header = %v, want ErrBadRequest", i, err)
		}
	}
	if got := e.s.Requests(cosmostest.RequestFilter{}); got != 0 {
		t.Fatalf("the server saw %d unsendable requests", got)
	}
	// The bad continuation is refused before the transport; the header added by
	// policy.WithHTTPHeader (below the policy) only in the HTTP client: once per write, never
	// retried.
	if got := e.rec.attempts(); len(got) != 3*retry.DefaultReadFailureThreshold {
		t.Fatalf("%d transport attempts, want one per write", len(got))
	}
	for _, b := range e.p.Breakers() {
		if b.State != retry.StateClosed || b.ConsecutiveFailures != 0 {
			t.Fatalf("breaker %s: %v with %d failures after unsendable requests", b.Name, b.State, b.ConsecutiveFailures)
		}
	}
	if err := e.read(ctx); err != nil {
		t.Fatalf("read after unsendable requests: %v", err)
	}
	if _, err := e.cc.UpsertItem(ctx, azcosmos.NewPartitionKeyString("p"), []byte(`{"id":"w","pk":"p"}`), nil); err != nil {
		t.Fatalf("write after unsendable requests: %v", err)
	}
}
