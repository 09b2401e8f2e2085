package capacity_test

import (
	"errors"
	"math"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/capacity"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// Issue 32, item 5: the autoscale floor is max(1,000, 10 × GB, highest ever / 10) (learn.microsoft.com,
// "Provision autoscale throughput", minimum max RU/s). A container that once had 50,000 RU/s and
// holds 20 GB cannot go below an autoscale max of 5,000 RU/s.
func TestAutoscaleFloorHighestEver(t *testing.T) {
	w := capacity.Workload{DataGB: 20, HighestProvisionedRUs: 50_000, Mode: capacity.Autoscale,
		Patterns: []capacity.Pattern{{Name: "r", Kind: capacity.Read, PeakRPS: 100}}}
	p := mustPlan(t, w)
	if p.Autoscale.FloorRUs != 5000 || p.Autoscale.MaxRUs != 5000 || p.ProvisionedRUs != 5000 {
		t.Errorf("autoscale floor %d, max %d, provisioned %d; want 5000", p.Autoscale.FloorRUs, p.Autoscale.MaxRUs, p.ProvisionedRUs)
	}
	// Manual: max(400, 20, 50,000 / 100) = 500.
	if p.Manual.FloorRUs != 500 {
		t.Errorf("manual floor %d, want 500", p.Manual.FloorRUs)
	}
	tp := p.ThroughputProperties()
	if mx, ok := tp.AutoscaleMaxThroughput(); !ok || mx != 5000 {
		t.Errorf("ThroughputProperties autoscale max %d (%v), want 5000", mx, ok)
	}
}

// Issue 32, item 5: a workload inside the validator's bounds never makes ThroughputProperties
// wrap through int32: New refuses it (naming the field), or the throughput passed on is the plan's.
func TestThroughputNeverWraps(t *testing.T) {
	w := capacity.Workload{Patterns: []capacity.Pattern{{Name: "big", Kind: capacity.Replace, PeakRPS: 1e8, DocumentKB: 2048}}}
	p, err := capacity.New(w)
	var ve *cosmoserr.ValidationError
	if err == nil {
		t.Fatalf("planned %d RU/s; ThroughputProperties %v", p.ProvisionedRUs, p.ThroughputProperties())
	}
	if !errors.As(err, &ve) || ve.Field != "Workload.Patterns" {
		t.Errorf("err = %v, want a ValidationError naming Workload.Patterns", err)
	}
}

// FuzzPlanBounds: over the validator's bounds, New either refuses with a ValidationError or gives a
// plan whose throughput properties carry exactly its provisioned RU/s (positive, no wrap).
func FuzzPlanBounds(f *testing.F) {
	f.Add(1e8, 2048.0, 1e7, 1e6, uint8(3), 100, false, uint8(0), 0.5)
	f.Add(1.0, 1.0, 0.0, 0.0, uint8(0), 1, true, uint8(1), 0.0)
	f.Add(2e5, 2048.0, 1e7, 0.0, uint8(6), 1, true, uint8(7), 1.0)
	f.Fuzz(func(t *testing.T, rps, kb, gb, highest float64, kind uint8, regions int, autoscale bool, flags uint8, level float64) {
		kinds := []capacity.Kind{capacity.Read, capacity.Create, capacity.Upsert, capacity.Replace, capacity.Patch, capacity.Delete, capacity.Query}
		w := capacity.Workload{DataGB: gb, HighestProvisionedRUs: highest, Regions: regions,
			MultiRegionWrites: flags&1 != 0, FreeTier: flags&2 != 0, ZoneRedundant: flags&4 != 0,
			Patterns: []capacity.Pattern{{Name: "p", Kind: kinds[int(kind)%len(kinds)], PeakRPS: rps, DocumentKB: kb, CrossPartition: kind%7 == 6 && flags&8 != 0}}}
		if flags&16 != 0 {
			w.LoadShape = capacity.PeakHours(int(flags%24), level)
		}
		if autoscale {
			w.Mode = capacity.Autoscale
		}
		p, err := capacity.New(w)
		if err != nil {
			var ve *cosmoserr.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("not a ValidationError: %v", err)
			}
			return
		}
		tp := p.ThroughputProperties()
		var got int32
		if autoscale {
			got, _ = tp.AutoscaleMaxThroughput()
		} else {
			got, _ = tp.ManualThroughput()
		}
		if got <= 0 || int64(got) != int64(p.ProvisionedRUs) || p.ProvisionedRUs > math.MaxInt32 {
			t.Fatalf("provisioned %d, throughput properties %d", p.ProvisionedRUs, got)
		}
		for _, v := range []float64{p.Manual.MonthlyCost, p.Autoscale.MonthlyCost, p.Serverless.MonthlyCost, p.StorageMonthly, p.TotalMonthly} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Fatalf("a cost is %v: %+v", v, p)
			}
		}
		if p.Autoscale.MonthlyCost > p.Autoscale.MonthlyCostAtPeak+0.01 {
			t.Fatalf("hour-by-hour autoscale %v above the every-hour-at-max bill %v", p.Autoscale.MonthlyCost, p.Autoscale.MonthlyCostAtPeak)
		}
	})
}
