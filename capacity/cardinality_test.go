package capacity_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/capacity"
	"github.com/cosmoskit/cosmoskit-go/partitionstats"
)

func TestCardinalityFromSample(t *testing.T) {
	many := make([]string, 1000)
	for i := range many {
		many[i] = fmt.Sprint("tenant-", i%500)
	}
	statuses := make([]string, 1000)
	for i := range statuses {
		statuses[i] = []string{"open", "paid", "shipped"}[i%3]
	}
	skewed := append([]string(nil), many...)
	for i := range 400 {
		skewed[i] = "big-tenant"
	}
	for _, tc := range []struct {
		path   string
		values []string
		want   capacity.Verdict
		known  bool
	}{
		{"/tenantId", many, capacity.High, false},
		{"/status", statuses, capacity.Low, true},
		{"/tenantId", skewed, capacity.Skewed, false},
		{"/tenantId", many[:10], capacity.Unknown, false},
		{"/tenantId", nil, capacity.Unknown, false},
	} {
		c := capacity.CardinalityFromSample(tc.path, tc.values)
		if c.Verdict != tc.want || c.KnownLowPath != tc.known {
			t.Errorf("%s (%d values): %+v, want %s", tc.path, len(tc.values), c, tc.want)
		}
		if strings.Contains(c.Reason, "tenant-") || strings.Contains(c.Reason, "paid") {
			t.Errorf("a value in the reason: %s", c.Reason)
		}
	}
}

func TestCardinalityFromStorage(t *testing.T) {
	report := func(distinct, docs, usage, largest int64) partitionstats.StorageReport {
		return partitionstats.StorageReport{UsageKB: usage, DocumentCount: docs,
			Partitions: []partitionstats.PhysicalPartition{{ID: "0", SampledDistinctKeys: distinct / 2}, {ID: "1", SampledDistinctKeys: distinct - distinct/2}},
			Largest:    []partitionstats.LogicalPartition{{Key: []any{"k"}, SizeKB: largest}}}
	}
	for _, tc := range []struct {
		r    partitionstats.StorageReport
		want capacity.Verdict
	}{
		{report(5000, 100000, 1000000, 1000), capacity.High},
		{report(3, 100000, 1000000, 400000), capacity.Low},
		{report(5000, 100000, 1000000, 300000), capacity.Skewed},
		{report(0, 0, 0, 0), capacity.Unknown},
	} {
		if c := capacity.CardinalityFromStorage("/pk", tc.r); c.Verdict != tc.want {
			t.Errorf("%+v: %+v, want %s", tc.r, c, tc.want)
		}
	}
}
