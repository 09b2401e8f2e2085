package repository_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// TestCrossPartitionAcrossPhysicalPartitions: OrderBy/Top, Page, All and Count of a
// CrossPartition query run on four physical partitions through the crosspartition engine.
func TestCrossPartitionAcrossPhysicalPartitions(t *testing.T) {
	ctx := context.Background()
	e := newEnvWith(t, []cosmostest.Option{cosmostest.WithPartitionCount(4)})
	orders := newOrders(t, e.container)
	var totals []int
	for c := range 12 {
		for i := range 5 {
			total := (c*7 + i*13) % 50
			totals = append(totals, total)
			if _, err := orders.Create(ctx, Order{ID: fmt.Sprintf("o%d-%d", c, i), CustomerID: fmt.Sprint("c", c), Status: "open", Total: total}); err != nil {
				t.Fatal(err)
			}
		}
	}
	slices.Sort(totals)
	slices.Reverse(totals)

	// Top customers' orders: the five largest totals, across partitions.
	top := repository.NewQuery().CrossPartition().OrderBy("total", repository.Desc).Top(5)
	p, err := orders.Page(ctx, top, 10, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) != 5 || p.Next != "" {
		t.Fatalf("top 5 = %d items, next %q", len(p.Items), p.Next)
	}
	for i, o := range p.Items {
		if o.Total != totals[i] {
			t.Fatalf("item %d total %d, want %d", i, o.Total, totals[i])
		}
	}

	// Page by page with the opaque tokens, 7 at a time, in order and without repeats.
	q := repository.NewQuery().CrossPartition().OrderBy("total", repository.Desc)
	var got []int
	seen := map[string]bool{}
	token := ""
	for {
		p, err := orders.Page(ctx, q, 7, token)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range p.Items {
			if seen[o.ID] {
				t.Fatalf("%s returned twice", o.ID)
			}
			seen[o.ID] = true
			got = append(got, o.Total)
		}
		if p.Next == "" {
			break
		}
		token = p.Next
	}
	if !slices.Equal(got, totals) {
		t.Fatalf("paged totals %v, want %v", got, totals)
	}
	all := collect(t, orders.All(ctx, q))
	if len(all) != 60 {
		t.Fatalf("All = %d items", len(all))
	}

	// Count across partitions.
	n, err := orders.Count(ctx, repository.NewQuery().CrossPartition().Where("status", repository.Eq, "open"))
	if err != nil {
		t.Fatal(err)
	}
	if n != 60 {
		t.Fatalf("Count = %d", n)
	}

	// A token of another query is refused before any request.
	p, err = orders.Page(ctx, q, 7, "")
	if err != nil || p.Next == "" {
		t.Fatal(err)
	}
	e.srv.ResetRequests()
	other := repository.NewQuery().CrossPartition().OrderBy("total", repository.Asc)
	if _, err := orders.Page(ctx, other, 7, p.Next); !errors.Is(err, cosmoserr.ErrInvalidToken) {
		t.Fatalf("token of another query: %v", err)
	}
	// The same query text with another parameter value (another tenant's filter): the repository's
	// token binds the parameter values, so it is refused before the crosspartition engine (whose
	// own token binds them too) sees it.
	open := repository.NewQuery().CrossPartition().Where("status", repository.Eq, "open").OrderBy("total", repository.Desc)
	paid := repository.NewQuery().CrossPartition().Where("status", repository.Eq, "paid").OrderBy("total", repository.Desc)
	p, err = orders.Page(ctx, open, 7, "")
	if err != nil || p.Next == "" {
		t.Fatal(err)
	}
	e.srv.ResetRequests()
	if _, err := orders.Page(ctx, paid, 7, p.Next); !errors.Is(err, cosmoserr.ErrInvalidToken) {
		t.Fatalf("token of the same query with another parameter value: %v", err)
	}
	if n := e.srv.Requests(cosmostestDocs()); n != 0 {
		t.Fatalf("%d requests sent for another parameter's token", n)
	}
	if n := e.srv.Requests(cosmostestDocs()); n != 0 {
		t.Fatalf("%d requests sent for a foreign token", n)
	}
}
