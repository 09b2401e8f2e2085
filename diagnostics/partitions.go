package diagnostics

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Metric instruments of the PartitionTracker, by physical partition (attributes db.namespace,
// db.collection.name, cosmoskit.partition_key_range_id; never a partition key value).
const (
	// MetricPartitionRequestCharge sums the request units charged, per physical partition.
	MetricPartitionRequestCharge = "cosmoskit.partition.request_charge"
	// MetricPartitionRequests counts HTTP attempts, per physical partition.
	MetricPartitionRequests = "cosmoskit.partition.requests"
	// MetricPartitionThrottles counts attempts answered with 429, per physical partition.
	MetricPartitionThrottles = "cosmoskit.partition.throttled_requests"
)

// Defaults of TrackerOptions and ReportOptions.
const (
	// DefaultMaxKeys is the number of logical partition keys a tracker keeps per container.
	DefaultMaxKeys = 1000
	// DefaultHotFactor: a physical partition is hot from twice its fair share of the RU.
	DefaultHotFactor = 2.0
	// DefaultMinRequestCharge: no partition is reported hot before the container has spent 100 RU
	// in the window (too little traffic says nothing).
	DefaultMinRequestCharge = 100.0
)

// TrackerOptions configures a PartitionTracker; the zero value is the documented default.
type TrackerOptions struct {
	// MeterProvider records the per-partition metrics (MetricPartition*). Default: none; the
	// tracker still keeps the counts its Report reads.
	MeterProvider metric.MeterProvider
	// MaxKeys bounds the logical partition keys kept per container (a Space-Saving summary:
	// when full, a new key takes the place of the key with the least RU and inherits its count,
	// so every key with more than 1/MaxKeys of the RU is kept, its figures an upper bound).
	// Default (0): DefaultMaxKeys; negative is refused.
	MaxKeys int
}

// PartitionTracker is a per-retry azcore policy that finds hot partitions: it attributes each
// HTTP attempt's request charge, and each 429, to the physical and logical partition it concerns.
// The physical partition is the one that answered (the x-ms-documentdb-partitionkeyrangeid
// response header, else the one in the request, else the range of a single-range session token);
// for point operations, the logical partition is the key the request carried
// (x-ms-documentdb-partitionkey). Install it in
// azcosmos.ClientOptions.PerRetryPolicies, so that it also sees the attempts that were
// throttled and retried. Safe for concurrent use; its counts cover the time since it was created
// or last Reset. Attempts it cannot attribute to a physical partition (a query fanned out by the
// gateway, metadata reads) are left out of Report.
type PartitionTracker struct {
	maxKeys int
	mp      metric.MeterProvider
	inst    *partitionInstruments

	mu    sync.Mutex
	parts map[partitionID]*usage
	keys  map[containerID]*keySummary
}

type containerID struct{ database, container string }

type partitionID struct {
	containerID
	rangeID string
}

type usage struct {
	charge    float64
	requests  int64
	throttles int64
}

// keySummary is a Space-Saving summary of one container's logical keys.
type keySummary struct {
	entries map[string]*keyUsage
}

type keyUsage struct {
	usage
	rangeID string
	over    float64 // RU inherited from the evicted key: the count's possible overestimate
}

type partitionInstruments struct {
	charge    metric.Float64Counter
	requests  metric.Int64Counter
	throttles metric.Int64Counter
}

// NewPartitionTracker returns a tracker configured by o. If the MeterProvider fails to create an
// instrument, the error is returned with a tracker that keeps counts without metrics. A negative
// MaxKeys is refused (nil and a *cosmoserr.ValidationError naming Options.MaxKeys).
func NewPartitionTracker(o TrackerOptions) (*PartitionTracker, error) {
	if o.MaxKeys < 0 {
		return nil, &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "TrackerOptions.MaxKeys", Reason: "must not be negative (0 means the default)"}
	}
	t := &PartitionTracker{maxKeys: o.MaxKeys, mp: o.MeterProvider, parts: map[partitionID]*usage{}, keys: map[containerID]*keySummary{}}
	if t.maxKeys == 0 {
		t.maxKeys = DefaultMaxKeys
	}
	if o.MeterProvider == nil {
		return t, nil
	}
	m := o.MeterProvider.Meter(instrumentationName, metric.WithSchemaURL(semconv.SchemaURL))
	var in partitionInstruments
	var err, e error
	in.charge, e = m.Float64Counter(MetricPartitionRequestCharge, metric.WithUnit("{request_unit}"),
		metric.WithDescription("Request units charged, per physical partition."))
	err = errors.Join(err, e)
	in.requests, e = m.Int64Counter(MetricPartitionRequests, metric.WithUnit("{request}"),
		metric.WithDescription("HTTP attempts, per physical partition."))
	err = errors.Join(err, e)
	in.throttles, e = m.Int64Counter(MetricPartitionThrottles, metric.WithUnit("{request}"),
		metric.WithDescription("Attempts answered with 429, per physical partition."))
	err = errors.Join(err, e)
	if err != nil {
		return t, err
	}
	t.inst = &in
	return t, nil
}

// MaxKeys returns the number of logical keys kept per container: the option in effect.
func (t *PartitionTracker) MaxKeys() int { return t.maxKeys }

// Options returns the options in effect (MaxKeys filled in).
func (t *PartitionTracker) Options() TrackerOptions {
	return TrackerOptions{MeterProvider: t.mp, MaxKeys: t.maxKeys}
}

// Do implements policy.Policy.
func (t *PartitionTracker) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if resp == nil {
		return resp, err
	}
	raw := req.Raw()
	rangeID := responseRangeID(raw, resp)
	if rangeID == "" {
		return resp, err
	}
	op := wire.Classify(raw)
	if op.Container == "" {
		return resp, err
	}
	charge := wire.RequestCharge(resp.Header)
	throttled := resp.StatusCode == http.StatusTooManyRequests
	var key string
	if op.Point { // a query's key may be a prefix of a hierarchical key: not one logical partition
		key = raw.Header.Get(wire.HeaderPartitionKey)
	}
	t.add(raw.Context(), containerID{op.Database, op.Container}, rangeID, key, charge, throttled)
	return resp, err
}

// responseRangeID is the physical partition an attempt concerned, "" if not one.
func responseRangeID(raw *http.Request, resp *http.Response) string {
	if id := resp.Header.Get(wire.HeaderPKRangeID); id != "" {
		return id
	}
	if id := raw.Header.Get(wire.HeaderPKRangeID); id != "" {
		return id
	}
	id, _ := wire.SessionTokenRange(resp.Header.Get(wire.HeaderSessionToken))
	return id
}

func (t *PartitionTracker) add(ctx context.Context, c containerID, rangeID, key string, charge float64, throttled bool) {
	t.mu.Lock()
	p := partitionID{c, rangeID}
	u := t.parts[p]
	if u == nil {
		u = &usage{}
		t.parts[p] = u
	}
	u.record(charge, throttled)
	if key != "" {
		s := t.keys[c]
		if s == nil {
			s = &keySummary{entries: map[string]*keyUsage{}}
			t.keys[c] = s
		}
		s.record(key, rangeID, charge, throttled, t.maxKeys)
	}
	t.mu.Unlock()
	if t.inst != nil {
		set := metric.WithAttributeSet(attribute.NewSet(
			attribute.String(keySystemName, valSystemName),
			attribute.String(keyNamespace, c.database),
			attribute.String(keyCollection, c.container),
			attribute.String(keyPKRangeID, rangeID)))
		t.inst.charge.Add(ctx, charge, set)
		t.inst.requests.Add(ctx, 1, set)
		if throttled {
			t.inst.throttles.Add(ctx, 1, set)
		}
	}
}

func (u *usage) record(charge float64, throttled bool) {
	u.charge += charge
	u.requests++
	if throttled {
		u.throttles++
	}
}

func (s *keySummary) record(key, rangeID string, charge float64, throttled bool, max int) {
	e := s.entries[key]
	if e == nil {
		if len(s.entries) >= max {
			// Space-Saving: replace the key with the least RU; the newcomer inherits its count.
			var minKey string
			var min *keyUsage
			for k, v := range s.entries {
				if min == nil || v.charge < min.charge {
					minKey, min = k, v
				}
			}
			delete(s.entries, minKey)
			e = &keyUsage{usage: usage{charge: min.charge, requests: min.requests, throttles: min.throttles}, over: min.charge}
		} else {
			e = &keyUsage{}
		}
		s.entries[key] = e
	}
	e.rangeID = rangeID
	e.record(charge, throttled)
}

// Reset forgets the counts: the next Report covers the time from now.
func (t *PartitionTracker) Reset() {
	t.mu.Lock()
	t.parts = map[partitionID]*usage{}
	t.keys = map[containerID]*keySummary{}
	t.mu.Unlock()
}

// ReportOptions configures PartitionTracker.Report; the zero value is the documented default.
type ReportOptions struct {
	// PhysicalPartitions is the number of physical partitions of each container, for its fair
	// share. Default (0): the number that took traffic in the window; pass the real number (the
	// container's partition key ranges, e.g. len(partitionstats.StorageReport.Partitions)) so
	// that a partition taking all the traffic while the others sit idle is reported.
	PhysicalPartitions int
	// HotFactor: a physical partition is hot when its share of the container's RU is at least
	// HotFactor times its fair share 1/PhysicalPartitions. Default (0): DefaultHotFactor (2: with
	// 4 partitions, 50% of the RU or more).
	HotFactor float64
	// MinRequestCharge: nothing in a container is reported hot until it has spent this many RU
	// in the window. Default (0): DefaultMinRequestCharge.
	MinRequestCharge float64
}

// Options returns o with every default filled in: the options in effect.
func (o ReportOptions) Options() ReportOptions {
	if o.HotFactor <= 0 {
		o.HotFactor = DefaultHotFactor
	}
	if o.MinRequestCharge <= 0 {
		o.MinRequestCharge = DefaultMinRequestCharge
	}
	return o
}

// PartitionReport is the traffic per physical partition and per sampled logical key.
type PartitionReport struct {
	// Partitions are every physical partition that took traffic, by database, container and id.
	Partitions []PartitionUsage
	// Keys are the logical partition keys kept, by container, most RU first.
	Keys []KeyUsage
}

// PartitionUsage is one physical partition's traffic in the window.
type PartitionUsage struct {
	Database, Container, PartitionKeyRangeID string
	RequestCharge                            float64
	Requests, Throttles                      int64
	// Share is the partition's part of its container's RU in the window, 0 to 1.
	Share float64
	// Hot reports Share ≥ HotFactor / PhysicalPartitions (with at least MinRequestCharge spent in
	// the container, and more than one physical partition).
	Hot bool
}

// KeyUsage is one logical partition key's traffic in the window.
type KeyUsage struct {
	Database, Container string
	// Key is the partition key as the request carried it: its JSON array form, e.g. `["US"]`.
	Key string
	// PartitionKeyRangeID is the physical partition that served the key last.
	PartitionKeyRangeID string
	RequestCharge       float64
	Requests, Throttles int64
	// Share is the key's part of its container's RU in the window, 0 to 1.
	Share float64
	// Approximate reports figures that include a count inherited from an evicted key (more
	// distinct keys than TrackerOptions.MaxKeys): they are an upper bound.
	Approximate bool
	// Hot reports Share ≥ 1/PhysicalPartitions: the key alone uses a whole physical partition's
	// fair share of the container's throughput, and a logical partition is never split across
	// physical ones, so no split or added RU/s on other partitions relieves it.
	Hot bool
}

// Report returns the counts of the window with the hot partitions and keys marked.
func (t *PartitionTracker) Report(o ReportOptions) PartitionReport {
	o = o.Options()
	t.mu.Lock()
	defer t.mu.Unlock()
	totals := map[containerID]float64{}
	seen := map[containerID]int{}
	for p, u := range t.parts {
		totals[p.containerID] += u.charge
		seen[p.containerID]++
	}
	n := func(c containerID) int {
		if o.PhysicalPartitions > 0 {
			return max(o.PhysicalPartitions, seen[c])
		}
		return seen[c]
	}
	var r PartitionReport
	for p, u := range t.parts {
		pu := PartitionUsage{Database: p.database, Container: p.container, PartitionKeyRangeID: p.rangeID,
			RequestCharge: u.charge, Requests: u.requests, Throttles: u.throttles}
		if tot := totals[p.containerID]; tot > 0 {
			pu.Share = u.charge / tot
			pu.Hot = tot >= o.MinRequestCharge && n(p.containerID) > 1 && pu.Share >= o.HotFactor/float64(n(p.containerID))
		}
		r.Partitions = append(r.Partitions, pu)
	}
	slices.SortFunc(r.Partitions, func(a, b PartitionUsage) int {
		return cmp.Or(cmp.Compare(a.Database, b.Database), cmp.Compare(a.Container, b.Container),
			cmp.Compare(len(a.PartitionKeyRangeID), len(b.PartitionKeyRangeID)), cmp.Compare(a.PartitionKeyRangeID, b.PartitionKeyRangeID))
	})
	for c, s := range t.keys {
		tot := totals[c]
		for k, e := range s.entries {
			ku := KeyUsage{Database: c.database, Container: c.container, Key: k, PartitionKeyRangeID: e.rangeID,
				RequestCharge: e.charge, Requests: e.requests, Throttles: e.throttles, Approximate: e.over > 0}
			if tot > 0 {
				ku.Share = min(e.charge/tot, 1)
				ku.Hot = tot >= o.MinRequestCharge && n(c) > 1 && ku.Share >= 1/float64(n(c))
			}
			r.Keys = append(r.Keys, ku)
		}
	}
	slices.SortFunc(r.Keys, func(a, b KeyUsage) int {
		return cmp.Or(cmp.Compare(a.Database, b.Database), cmp.Compare(a.Container, b.Container),
			cmp.Compare(b.RequestCharge, a.RequestCharge), cmp.Compare(a.Key, b.Key))
	})
	return r
}

// Hot returns the hot physical partitions and keys of r.
func (r PartitionReport) Hot() ([]PartitionUsage, []KeyUsage) {
	var ps []PartitionUsage
	for _, p := range r.Partitions {
		if p.Hot {
			ps = append(ps, p)
		}
	}
	var ks []KeyUsage
	for _, k := range r.Keys {
		if k.Hot {
			ks = append(ks, k)
		}
	}
	return ps, ks
}
