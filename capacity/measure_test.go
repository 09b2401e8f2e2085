package capacity_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/capacity"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// cosmostest's RU model against the service's documented charges, measured through Measure: a
// point read of a 1 KB item costs 1 RU and grows with the size; a write costs about 5 RU per KB
// and grows with the size.
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
		{"read 1 KB", read("item-700"), 1},     // documented: 1 RU
		{"read 3 KB", read("item-2500"), 3},    // grows with the size
		{"create 1 KB", write(700), 5.71},      // documented: about 5 RU (seed 004: ~5)
		{"create 3 KB", write(2500), 3 * 5.71}, // grows with the size
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
	if pp := p.Patterns[0]; pp.Source != capacity.SourceMeasured || !near(pp.RU, 3) || !near(pp.ModelRU, 2) || !near(pp.PeakRUs, 300) {
		t.Errorf("pattern %+v, want measured 3 RU against the model's 2", pp)
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
