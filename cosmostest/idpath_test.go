package cosmostest_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// TestItemIDThroughTheGateway pins how the routing gateway treats item ids in the request path
// (the SDK's TestItemIdEncodingRoutingGW states the same table against the emulator): every id
// below can be created, because the id travels in the body, but an id the gateway reads
// differently from what the SDK signed (white space at the end, an escape sequence, "/", "\",
// "#", or "." and ".." which the URL normalises away) answers 401 for read, replace and delete, and
// an id with a control character (NUL and DEL included) 400. The
// items stay reachable by query.
func TestItemIDThroughTheGateway(t *testing.T) {
	t.Parallel()
	_, cc := setup(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name, id string
		point    int // status of read, replace and delete; 0 means they succeed
	}{
		{"plain", "Test", 0},
		{"inner spaces", "This is a test", 0},
		{"leading space", " Test", 0},
		{"trailing space", "Test ", http.StatusUnauthorized},
		{"trailing spaces", "Test  ", http.StatusUnauthorized},
		{"allowed punctuation", "a,=.:~+-@()^${}[]!_b", 0},
		{"escaped space at the end", "x%20", http.StatusUnauthorized},
		{"escaped character", "x%E9%B1%80", http.StatusUnauthorized},
		{"escaped slash", "a%2Fb", http.StatusUnauthorized},
		{"question mark", "a?b", 0},
		{"slash", "a/b", http.StatusUnauthorized},
		{"backslash", `a\b`, http.StatusUnauthorized},
		{"hash", "a#b", http.StatusUnauthorized},
		{"carriage return", "a\rb", http.StatusBadRequest},
		{"tab", "a\tb", http.StatusBadRequest},
		{"line feed", "a\nb", http.StatusBadRequest},
		{"unicode", "鱀", 0},
		{"percent sign", "100%", 0},
		{"dot", ".", http.StatusUnauthorized},
		{"dot dot", "..", http.StatusUnauthorized},
		{"NUL", "a\x00b", http.StatusBadRequest},
		{"other control character", "a\x01b", http.StatusBadRequest},
		{"DEL", "a\x7fb", http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pk := azcosmos.NewPartitionKeyString(tc.id)
			body := mustMarshal(t, map[string]string{"id": tc.id, "pk": tc.id})
			if _, err := cc.CreateItem(ctx, pk, body, nil); err != nil {
				t.Fatalf("create: %v", err)
			}
			want := tc.point
			_, err := cc.ReadItem(ctx, pk, tc.id, nil)
			checkPointStatus(t, "read", err, want)
			if want == http.StatusUnauthorized {
				// The service shows the link it checked: the one it read, not the one signed.
				var re *azcore.ResponseError
				if errors.As(err, &re) && !strings.Contains(err.Error(), "Server used the following payload to sign") {
					t.Fatalf("401 without the payload the server signed: %v", err)
				}
			}
			_, err = cc.ReplaceItem(ctx, pk, tc.id, body, nil)
			checkPointStatus(t, "replace", err, want)
			// Still there, and found by a query.
			pager := cc.NewQueryItemsPager("SELECT VALUE c.id FROM c WHERE c.id = @id", pk,
				&azcosmos.QueryOptions{QueryParameters: []azcosmos.QueryParameter{{Name: "@id", Value: tc.id}}})
			page, err := pager.NextPage(ctx)
			if err != nil || len(page.Items) != 1 || string(page.Items[0]) != string(mustMarshal(t, tc.id)) {
				t.Fatalf("query by id: %v, %q", err, page.Items)
			}
			_, err = cc.DeleteItem(ctx, pk, tc.id, nil)
			checkPointStatus(t, "delete", err, want)
		})
	}
}

func checkPointStatus(t *testing.T, op string, err error, want int) {
	t.Helper()
	got, _ := status(t, err)
	if got != want {
		t.Fatalf("%s: status %d, want %d (%v)", op, got, want, err)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
