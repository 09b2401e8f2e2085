package cosmostest_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// headerOverride sets one request header on every request, after the SDK has set its own.
type headerOverride struct{ name, value string }

func (h headerOverride) Do(req *policy.Request) (*http.Response, error) {
	if req.Raw().Header.Get(h.name) != "" || h.value != "" {
		req.Raw().Header.Set(h.name, h.value)
	}
	return req.Next()
}

func TestMaxItemCountValidated(t *testing.T) {
	ctx := context.Background()
	s := cosmostest.NewServer(t)
	cc := newContainer(t, newClient(t, s, nil), "c1", nil)
	pk := azcosmos.NewPartitionKeyString("p")
	for i := range 3 {
		if _, err := cc.UpsertItem(ctx, pk, fmt.Appendf(nil, `{"id":"%d","pk":"p"}`, i), nil); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		value  string
		status int
	}{
		{"abc", 400}, {"1.5", 400}, {"0", 400}, {"-2", 400}, {"99999999999", 400},
		{"-1", 200}, {"2", 200},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			c := newClient(t, s, func(o *azcosmos.ClientOptions) {
				o.PerCallPolicies = append(o.PerCallPolicies, headerOverride{"x-ms-max-item-count", tt.value})
			})
			qc, err := c.NewContainer("db", "c1")
			if err != nil {
				t.Fatal(err)
			}
			// Query (the SDK sends the header when PageSizeHint != 0; the policy rewrites it).
			pager := qc.NewQueryItemsPager("SELECT * FROM c", pk, &azcosmos.QueryOptions{PageSizeHint: 1})
			_, err = pager.NextPage(ctx)
			if st, _ := status(t, err); (st == 0 && tt.status != 200) || (st != 0 && st != tt.status) {
				t.Fatalf("query: status %d, want %d: %v", st, tt.status, err)
			}
			if err != nil && !strings.Contains(err.Error(), "x-ms-max-item-count") {
				t.Fatalf("message does not name the header: %v", err)
			}
			// Change feed.
			_, err = qc.ReadChangeFeed(ctx, &azcosmos.ChangeFeedOptions{MaxItemCount: 1, FeedRange: fullRange()})
			if st, _ := status(t, err); (st == 0 && tt.status != 200) || (st != 0 && st != tt.status) {
				t.Fatalf("change feed: status %d, want %d: %v", st, tt.status, err)
			}
		})
	}
}

func TestFanOutQuerySessionToken(t *testing.T) {
	ctx := context.Background()
	_, cc := setup(t, cosmostest.WithPartitionCount(3))
	for i := range 12 {
		pk := azcosmos.NewPartitionKeyString(fmt.Sprintf("p%d", i))
		if _, err := cc.UpsertItem(ctx, pk, fmt.Appendf(nil, `{"id":"x","pk":"p%d"}`, i), nil); err != nil {
			t.Fatal(err)
		}
	}
	pager := cc.NewQueryItemsPager("SELECT c.id FROM c", azcosmos.NewPartitionKey(), nil)
	page, err := pager.NextPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tok := page.RawResponse.Header.Get("x-ms-session-token")
	parts := strings.Split(tok, ",")
	if len(parts) != 3 {
		t.Fatalf("session token %q: want one entry per range (3)", tok)
	}
	re := regexp.MustCompile(`^\d+:-1#\d+$`)
	seen := map[string]bool{}
	for _, p := range parts {
		if !re.MatchString(p) {
			t.Fatalf("session token entry %q is not <range>:-1#<lsn>", p)
		}
		seen[strings.SplitN(p, ":", 2)[0]] = true
	}
	if len(seen) != 3 {
		t.Fatalf("session token %q repeats a range", tok)
	}
}
