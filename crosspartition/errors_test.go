package crosspartition

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// TestServiceErrorsAreCosmoserrErrors: a service error leaves the pager as a *cosmoserr.Error for
// query_items (the one error model), still unwrapping to the SDK's *azcore.ResponseError.
func TestServiceErrorsAreCosmoserrErrors(t *testing.T) {
	s, c := newContainer(t, 4, nil)
	put(t, c, docs(40)...)
	x := mustNew(t, c)
	s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpQueryItems, PartitionKeyRangeID: "2", Status: http.StatusForbidden, SubStatus: 5300, Message: "injected"})
	_, err := x.NewQueryItemsPager("SELECT c.id FROM c ORDER BY c.n", nil).NextPage(context.Background())
	var ce *cosmoserr.Error
	if !errors.As(err, &ce) || ce.Operation != cosmoserr.OpQueryItems || ce.StatusCode != http.StatusForbidden || ce.SubStatus != 5300 {
		t.Fatalf("err = %v, want a *cosmoserr.Error for query_items with 403/5300", err)
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusForbidden {
		t.Fatalf("%v does not unwrap to the SDK's 403", err)
	}

	// A container that is gone is ErrNotFound, whichever request found it missing.
	if _, err := c.Delete(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	_, err = mustNew(t, c).NewQueryItemsPager("SELECT c.id FROM c", nil).NextPage(context.Background())
	if !errors.Is(err, cosmoserr.ErrNotFound) || !errors.As(err, &ce) || ce.Operation != cosmoserr.OpQueryItems {
		t.Fatalf("missing container: %v, want a *cosmoserr.Error matching ErrNotFound", err)
	}

}
