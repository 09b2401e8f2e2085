package capacity_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/capacity"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// cosmostest's RU model against the service's documented charges, measured through Measure: a
// point read of a 1 KB item costs 1 RU and grows slowly with the size (2 KB 1.04, 4 KB 1.14); a
// 1 KB write about 5 RU (4.95 with two indexed terms, +0.2 per further term: doc's items have
// four), growing slowly with the size (2 KB 6.29, 4 KB 6.67).
func TestMeasureAgainstDocumentedCharges(t *testing.T) {
	_, c := newContainer(t, 1, nil, nil)
	ctx := context.Background()
	// ~700 bytes of JSON: under 1 KB with the system properties.
	for _, size := range []int{700, 2500} {
		id := fmt.Sprint("item-", size)
		if _, err := c.CreateItem(ctx, azcosmos.NewPartitionKeyString("a"), doc(id, "a", size), nil); err != nil {
			t.Fatal(err)
		}
	}
	read := func(id string) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := c.ReadItem(ctx, azcosmos.NewPartitionKeyString("a"), id, nil)
			return err
		}
	}
	n := 0
	write := func(size int) func(context.Context) error {
		return func(ctx context.Context) error {
			n++
			_, err := c.CreateItem(ctx, azcosmos.NewPartitionKeyString("a"), doc(fmt.Sprint("w", n), "a", size), nil)
			return err
		}
	}
	for _, tc := range []struct {
		name string
		op   func(context.Context) error
		want float64
	}{
		{"read 1 KB", read("item-700"), 1},         // documented: 1 RU
		{"read 2.6 KB", read("item-2500"), 1.07},   // between the 2 KB (1.04) and 4 KB (1.14) rows
		{"create 1 KB", write(700), 5.35},          // 4.95 + 2 × 0.2
		{"create 2.6 KB", write(2500), 6.41 + 0.4}, // between 6.29 and 6.67, + 2 × 0.2
	} {
		m, err := capacity.Measure(ctx, tc.name, tc.op, capacity.MeasureOptions{Runs: 3})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !near(m.MeanRU, tc.want) || !near(m.MinRU, tc.want) || !near(m.MaxRU, tc.want) || m.Runs != 3 || m.Requests != 3 {
			t.Errorf("%s: %+v, want %v RU per run", tc.name, m, tc.want)
		}
	}
}

// A measured pattern replaces the model in the plan, and the table shows both.
func TestMeasuredPlan(t *testing.T) {
	_, c := newContainer(t, 1, nil, nil)
	ctx := context.Background()
	if _, err := c.CreateItem(ctx, azcosmos.NewPartitionKeyString("a"), doc("x", "a", 2500), nil); err != nil {
		t.Fatal(err)
	}
	m, err := capacity.Measure(ctx, "get", func(ctx context.Context) error {
		_, err := c.ReadItem(ctx, azcosmos.NewPartitionKeyString("a"), "x", nil)
		return err
	}, capacity.MeasureOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Runs != capacity.DefaultRuns {
		t.Errorf("runs = %d, want the default %d", m.Runs, capacity.DefaultRuns)
	}
	w := capacity.Workload{Patterns: []capacity.Pattern{{Name: "get", Kind: capacity.Read, PeakRPS: 100, DocumentKB: 2}}}
	p := mustPlan(t, w.WithMeasurements(m))
	if pp := p.Patterns[0]; pp.Source != capacity.SourceMeasured || !near(pp.RU, 1.07) || !near(pp.ModelRU, 1.04) || !near(pp.PeakRUs, 107) {
		t.Errorf("pattern %+v, want measured 1.07 RU against the model's 1.04", pp)
	}
}

// Issue 35: on cosmostest, excluding every path but the partition key lowers a write's charge, as
// the service documents ("Request units": "to reduce RU consumption for write operations, limit
// the number of indexed properties"); Measure shows by how much.
func TestMeasureIndexingPolicySaving(t *testing.T) {
	ctx := context.Background()
	keyOnly := &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
		IncludedPaths: []azcosmos.IncludedPath{{Path: "/pk/?"}}, ExcludedPaths: []azcosmos.ExcludedPath{{Path: "/*"}}}
	// An order of about 1 KB with ten properties.
	order := func(id string) []byte {
		return fmt.Appendf(nil, `{"id":%q,"pk":"c1","status":"open","total":12.5,"currency":"EUR","city":"Lyon","country":"FR","lines":3,"paid":false,"note":%q}`,
			id, strings.Repeat("n", 600))
	}
	measure := func(ip *azcosmos.IndexingPolicy) float64 {
		_, c := newContainer(t, 1, ip, nil)
		n := 0
		m, err := capacity.Measure(ctx, "create-order", func(ctx context.Context) error {
			n++
			_, err := c.CreateItem(ctx, azcosmos.NewPartitionKeyString("c1"), order(fmt.Sprint("o", n)), nil)
			return err
		}, capacity.MeasureOptions{Runs: 3})
		if err != nil {
			t.Fatal(err)
		}
		return m.MeanRU
	}
	all, key := measure(nil), measure(keyOnly)
	// Ten indexed terms: 4.95 + 8 × 0.2 = 6.55; the key only: 4.95 − 0.2 = 4.75.
	if !near(all, 6.55) || !near(key, 4.75) {
		t.Errorf("write RU: default policy %v, key only %v; want 6.55 and 4.75", all, key)
	}
	t.Logf("1 KB order, 10 properties: %.2f RU with the default policy, %.2f with only /pk indexed (%.0f%% less)", all, key, 100*(all-key)/all)
}

// Issue 35: a cross-partition query costs more on 8 physical partitions than on 1 (2.8 RU per
// partition it reads, on top of the documents it loads).
func TestMeasureCrossPartitionQueryByPartitions(t *testing.T) {
	ctx := context.Background()
	cost := map[int]float64{}
	for _, parts := range []int{1, 8} {
		_, c := newContainer(t, parts, nil, nil)
		for i := range 16 {
			pk := fmt.Sprint("k", i)
			if _, err := c.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), doc(fmt.Sprint("d", i), pk, 300), nil); err != nil {
				t.Fatal(err)
			}
		}
		m, err := capacity.Measure(ctx, "count", func(ctx context.Context) error {
			p := c.NewQueryItemsPager("SELECT * FROM c WHERE c.kind = 'order'", azcosmos.NewPartitionKey(), nil)
			for p.More() {
				if _, err := p.NextPage(ctx); err != nil {
					return err
				}
			}
			return nil
		}, capacity.MeasureOptions{Runs: 2})
		if err != nil {
			t.Fatal(err)
		}
		cost[parts] = m.MeanRU
	}
	if !(cost[8] > cost[1]) || !near(cost[8]-cost[1], 7*2.8) {
		t.Errorf("cross-partition query: %v RU on 1 partition, %v on 8; want 8 dearer by 7 × 2.8", cost[1], cost[8])
	}
}

func TestMeasureErrors(t *testing.T) {
	ctx := context.Background()
	var ve *cosmoserr.ValidationError
	if _, err := capacity.Measure(ctx, "", func(context.Context) error { return nil }, capacity.MeasureOptions{}); !errors.As(err, &ve) || ve.Field != "pattern" {
		t.Errorf("empty name: %v", err)
	}
	if _, err := capacity.Measure(ctx, "p", nil, capacity.MeasureOptions{}); !errors.As(err, &ve) || ve.Field != "op" {
		t.Errorf("nil op: %v", err)
	}
	if _, err := capacity.Measure(ctx, "p", func(context.Context) error { return nil }, capacity.MeasureOptions{Runs: -1}); !errors.As(err, &ve) || ve.Field != "MeasureOptions.Runs" {
		t.Errorf("negative runs: %v", err)
	}
	// An operation that makes no metered request is refused, not measured as 0 RU.
	if _, err := capacity.Measure(ctx, "p", func(context.Context) error { return nil }, capacity.MeasureOptions{}); err == nil {
		t.Error("nothing metered: no error")
	}
	boom := errors.New("boom")
	if _, err := capacity.Measure(ctx, "p", func(context.Context) error { return boom }, capacity.MeasureOptions{}); !errors.Is(err, boom) {
		t.Errorf("op error: %v", err)
	}
}
