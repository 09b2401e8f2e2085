package repository_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// TestCrossPartitionOrderByPagesAcrossWrites: Page with CrossPartition().OrderBy("id"), each page
// from the previous page's token, with inserts and deletes between pages (the repro:
// deleting the rows read made 8 rows that existed throughout never come back; inserting a row
// next to each row read returned rows twice and out of order), and with random interleavings on
// 1, 4 and 8 physical partitions: every order that existed throughout comes back exactly once, no
// order twice, in id order.
func TestCrossPartitionOrderByPagesAcrossWrites(t *testing.T) {
	ctx := context.Background()
	q := repository.NewQuery().CrossPartition().OrderBy("id", repository.Asc)
	for _, parts := range []int{1, 4, 8} {
		for _, mode := range []string{"delete read", "insert next to read", "random"} {
			e := newEnvWith(t, []cosmostest.Option{cosmostest.WithPartitionCount(parts)})
			orders := newOrders(t, e.container)
			rng := rand.New(rand.NewPCG(uint64(parts), 9))
			live := map[string]string{} // id -> customer
			throughout := map[string]bool{}
			add := func(id string) {
				c := fmt.Sprint("c", rng.IntN(11))
				if _, err := orders.Create(ctx, Order{ID: id, CustomerID: c, Total: rng.IntN(9)}); err != nil {
					t.Fatal(err)
				}
				live[id] = c
			}
			del := func(id string) {
				if err := orders.Delete(ctx, pk(live[id]), id); err != nil {
					t.Fatal(err)
				}
				delete(live, id)
				delete(throughout, id)
			}
			for i := range 40 {
				id := fmt.Sprintf("o%02d", i)
				add(id)
				throughout[id] = true
			}
			var got []string
			token, next := "", 0
			for pages := 0; ; pages++ {
				p, err := orders.Page(ctx, q, 6, token)
				if err != nil {
					t.Fatal(err)
				}
				for _, o := range p.Items {
					got = append(got, o.ID)
					switch mode {
					case "delete read":
						del(o.ID)
					case "insert next to read":
						add(o.ID + "a")
					}
				}
				if p.Next == "" {
					break
				}
				if mode == "random" {
					for range rng.IntN(5) {
						if rng.IntN(2) == 0 {
							add(fmt.Sprintf("o%02dn%d", rng.IntN(45), next))
							next++
							continue
						}
						ids := make([]string, 0, len(live))
						for id := range live {
							ids = append(ids, id)
						}
						slices.Sort(ids)
						del(ids[rng.IntN(len(ids))])
					}
				}
				token = p.Next
				if pages > 1000 {
					t.Fatal("too many pages")
				}
			}
			name := fmt.Sprintf("%d partitions, %s", parts, mode)
			count := map[string]int{}
			for _, id := range got {
				count[id]++
				if count[id] == 2 {
					t.Errorf("%s: %s returned twice", name, id)
				}
			}
			for id := range throughout {
				if count[id] == 0 {
					t.Errorf("%s: %s existed throughout and never came back", name, id)
				}
			}
			if !slices.IsSorted(got) {
				t.Errorf("%s: not in id order: %v", name, got)
			}
		}
	}
}
