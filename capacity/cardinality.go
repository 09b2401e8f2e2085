package capacity

import (
	"fmt"

	"github.com/cosmoskit/cosmoskit-go/internal/cardinality"
	"github.com/cosmoskit/cosmoskit-go/partitionstats"
)

// Cardinality thresholds (seed 000, partition-high-cardinality: "aim for 100+ distinct values";
// seed 004: hot partitions from popularity skew).
const (
	// MinDistinctKeys is the fewest distinct partition key values of a high-cardinality key.
	MinDistinctKeys = 100
	// MaxKeyShare is the largest share of the items (or storage) one key value may hold before
	// the key is called skewed.
	MaxKeyShare = 0.2
)

// Verdict is a partition key's cardinality verdict.
type Verdict string

// The verdicts.
const (
	High    Verdict = "high"    // many values, none dominant
	Low     Verdict = "low"     // fewer than MinDistinctKeys values
	Skewed  Verdict = "skewed"  // enough values, but one holds more than MaxKeyShare
	Unknown Verdict = "unknown" // too little evidence
)

// Cardinality is the verdict on a partition key, with the counts behind it (never a key value).
type Cardinality struct {
	Path    string
	Verdict Verdict
	// Distinct is the number of distinct values seen (sampled) or estimated (storage report);
	// Samples the values sampled (0 for a storage report).
	Distinct, Samples int64
	// LargestShare is the share of the samples (or of the storage) of the most frequent (largest)
	// value.
	LargestShare float64
	// KnownLowPath reports that the path's name is one known to have few values (/status, /type,
	// /country, ...).
	KnownLowPath bool
	// Reason explains the verdict in a sentence.
	Reason string
}

// CardinalityFromSample judges a partition key from a sample of its values, e.g. the partition key
// values of the first thousand items of a query or of a change feed read. Values are compared,
// never kept or reported.
func CardinalityFromSample(path string, values []string) Cardinality {
	c := Cardinality{Path: path, Samples: int64(len(values)), KnownLowPath: cardinality.LowPath(path)}
	counts := map[string]int64{}
	var top int64
	for _, v := range values {
		counts[v]++
		top = max(top, counts[v])
	}
	c.Distinct = int64(len(counts))
	if c.Samples > 0 {
		c.LargestShare = float64(top) / float64(c.Samples)
	}
	switch {
	case c.Samples == 0:
		c.Verdict, c.Reason = Unknown, "no values sampled"
	case c.Distinct < MinDistinctKeys && c.Distinct < c.Samples:
		c.Verdict, c.Reason = Low, fmt.Sprintf("%d distinct values in %d sampled (fewer than %d): data and throughput concentrate on few logical partitions", c.Distinct, c.Samples, MinDistinctKeys)
	case c.Distinct < MinDistinctKeys:
		c.Verdict, c.Reason = Unknown, fmt.Sprintf("all %d sampled values differ; sample at least %d to judge", c.Samples, MinDistinctKeys)
	case c.LargestShare > MaxKeyShare:
		c.Verdict, c.Reason = Skewed, fmt.Sprintf("one value holds %.0f%% of the sample: a hot logical partition", 100*c.LargestShare)
	default:
		c.Verdict, c.Reason = High, fmt.Sprintf("%d distinct values in %d sampled, none above %.0f%%", c.Distinct, c.Samples, 100*MaxKeyShare)
	}
	return c
}

// CardinalityFromStorage judges a partition key from a container's storage report
// (partitionstats.ReadStorage): the service's estimate of distinct keys per physical partition and
// its largest logical partitions.
func CardinalityFromStorage(path string, r partitionstats.StorageReport) Cardinality {
	c := Cardinality{Path: path, KnownLowPath: cardinality.LowPath(path)}
	for _, p := range r.Partitions {
		c.Distinct += p.SampledDistinctKeys
	}
	if len(r.Largest) > 0 && r.UsageKB > 0 {
		c.LargestShare = float64(r.Largest[0].SizeKB) / float64(r.UsageKB)
	}
	switch {
	case r.DocumentCount == 0 || c.Distinct == 0:
		c.Verdict, c.Reason = Unknown, "the container is empty or the service reported no key estimate"
	case c.Distinct < MinDistinctKeys && c.Distinct < r.DocumentCount:
		c.Verdict, c.Reason = Low, fmt.Sprintf("about %d distinct values for %d items (fewer than %d)", c.Distinct, r.DocumentCount, MinDistinctKeys)
	case c.LargestShare > MaxKeyShare:
		c.Verdict, c.Reason = Skewed, fmt.Sprintf("the largest logical partition holds %.0f%% of the storage", 100*c.LargestShare)
	case c.Distinct < MinDistinctKeys:
		c.Verdict, c.Reason = Unknown, fmt.Sprintf("about %d distinct values for %d items; too few items to judge", c.Distinct, r.DocumentCount)
	default:
		c.Verdict, c.Reason = High, fmt.Sprintf("about %d distinct values, the largest logical partition %.0f%% of the storage", c.Distinct, 100*c.LargestShare)
	}
	return c
}
