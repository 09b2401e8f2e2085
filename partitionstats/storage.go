package partitionstats

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// The service's storage limits.
const (
	// LogicalPartitionLimitKB is the most one logical partition (one full partition key value)
	// may store: 20 GB. Writes beyond it fail; hierarchical keys spread a big tenant over many.
	LogicalPartitionLimitKB = 20 * 1024 * 1024
	// PhysicalPartitionLimitKB is what one physical partition holds, 50 GB, before the service
	// splits it (a split takes time and the partition keeps serving; a logical partition cannot
	// be split).
	PhysicalPartitionLimitKB = 50 * 1024 * 1024
	// DefaultWarnFraction is the share of a limit from which a Warning is reported: 0.8 (16 GB
	// for a logical partition, 40 GB for a physical one).
	DefaultWarnFraction = 0.8
)

// StorageOptions configures ReadStorage. The zero value uses the service's limits and
// DefaultWarnFraction; ReadStorage refuses negative limits and a WarnFraction outside [0, 1]
// (a *cosmoserr.ValidationError naming the option), and StorageReport carries nothing of them:
// Options reads the options in effect.
type StorageOptions struct {
	// LogicalLimitKB is the logical partition limit warnings are computed against. Default (0):
	// LogicalPartitionLimitKB.
	LogicalLimitKB int64
	// PhysicalLimitKB is the physical partition size warnings are computed against. Default
	// (0): PhysicalPartitionLimitKB.
	PhysicalLimitKB int64
	// WarnFraction is the share of a limit from which a Warning is reported, in (0, 1]. Default
	// (0): DefaultWarnFraction.
	WarnFraction float64
}

// validate refuses values that are neither the zero default nor usable.
func (o StorageOptions) validate() error {
	bad := func(field, reason string) error {
		return &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "StorageOptions." + field, Reason: reason}
	}
	switch {
	case o.LogicalLimitKB < 0:
		return bad("LogicalLimitKB", "must not be negative (0 means the service's limit)")
	case o.PhysicalLimitKB < 0:
		return bad("PhysicalLimitKB", "must not be negative (0 means the service's limit)")
	case !(o.WarnFraction >= 0 && o.WarnFraction <= 1):
		return bad("WarnFraction", "must be in [0, 1] (0 means the default, 0.8)")
	}
	return nil
}

// Options returns o with every default filled in: the options in effect.
func (o StorageOptions) Options() StorageOptions {
	if o.LogicalLimitKB <= 0 {
		o.LogicalLimitKB = LogicalPartitionLimitKB
	}
	if o.PhysicalLimitKB <= 0 {
		o.PhysicalLimitKB = PhysicalPartitionLimitKB
	}
	if o.WarnFraction <= 0 || o.WarnFraction > 1 {
		o.WarnFraction = DefaultWarnFraction
	}
	return o
}

// StorageReport is what the service reports about a container's storage.
type StorageReport struct {
	// Container is the container id.
	Container string
	// UsageKB and DocumentCount are the container's totals (x-ms-resource-usage documentsSize
	// and documentsCount); QuotaKB is its documentsSize quota (x-ms-resource-quota), 0 if absent.
	UsageKB, DocumentCount, QuotaKB int64
	// Partitions are the physical partitions, by id.
	Partitions []PhysicalPartition
	// Largest are the largest logical partitions reported, largest first, across all physical
	// partitions.
	Largest []LogicalPartition
	// Warnings name the partitions at or above WarnFraction of their limit, logical ones first.
	Warnings []Warning
}

// PhysicalPartition is one physical partition (partition key range).
type PhysicalPartition struct {
	ID            string
	SizeKB        int64
	DocumentCount int64
	// SampledDistinctKeys is the service's estimate of the number of logical partitions in it.
	SampledDistinctKeys int64
	// Largest are the logical partitions the service listed for it, largest first.
	Largest []LogicalPartition
}

// LogicalPartition is one logical partition the service listed.
type LogicalPartition struct {
	// Key is the partition key's values, as JSON values (a string, float64, bool, nil, or an
	// empty map for an undefined component), one per level.
	Key []any
	// PhysicalPartition is the id of the physical partition that holds it.
	PhysicalPartition string
	SizeKB            int64
}

// Warning is a partition at or above the warning fraction of its limit.
type Warning struct {
	// Logical is true for a logical partition (Key is set), false for a physical one.
	Logical           bool
	Key               []any
	PhysicalPartition string
	SizeKB, LimitKB   int64
}

// String says what the warning is about, e.g. `logical partition ["contoso"] in physical
// partition 2 holds 16.5 GB, 83% of its 20 GB limit`.
func (w Warning) String() string {
	what := "physical partition " + w.PhysicalPartition
	if w.Logical {
		k, _ := json.Marshal(w.Key)
		what = "logical partition " + string(k) + " in physical partition " + w.PhysicalPartition
	}
	return fmt.Sprintf("%s holds %s, %.0f%% of its %s limit", what, gb(w.SizeKB), 100*float64(w.SizeKB)/float64(w.LimitKB), gb(w.LimitKB))
}

func gb(kb int64) string {
	switch {
	case kb >= 1024*1024:
		return strconv.FormatFloat(float64(kb)/(1024*1024), 'f', 1, 64) + " GB"
	case kb >= 1024:
		return strconv.FormatFloat(float64(kb)/1024, 'f', 1, 64) + " MB"
	}
	return strconv.FormatInt(kb, 10) + " KB"
}

// ReadStorage reads the container with partition statistics and quota info and reports its
// storage. It is one metadata read. Options that are neither zero nor usable are refused before
// it, with a *cosmoserr.ValidationError (matching cosmoserr.ErrValidation) naming the option.
func ReadStorage(ctx context.Context, c *azcosmos.ContainerClient, o StorageOptions) (StorageReport, error) {
	if err := o.validate(); err != nil {
		return StorageReport{}, err
	}
	o = o.Options()
	ctx = policy.WithHTTPHeader(ctx, http.Header{wire.HeaderPopulatePartitionStatistics: {"true"}})
	resp, err := c.Read(ctx, &azcosmos.ReadContainerOptions{PopulateQuotaInfo: true})
	if err != nil {
		// The one error model: a *cosmoserr.Error (cosmoserr.ErrNotFound for a missing container) that
		// unwraps to the SDK's *azcore.ResponseError.
		return StorageReport{}, cosmoserr.FromError(cosmoserr.OpReadContainer, err)
	}
	body, err := runtime.Payload(resp.RawResponse)
	if err != nil {
		// The body could not be read: no status to report, the container is named.
		return StorageReport{}, &cosmoserr.Error{Operation: cosmoserr.OpReadContainer, Container: c.ID(), Err: err}
	}
	var props struct {
		Statistics []struct {
			ID            string `json:"id"`
			SizeInKB      int64  `json:"sizeInKB"`
			DocumentCount int64  `json:"documentCount"`
			Sampled       int64  `json:"sampledDistinctPartitionKeyCount"`
			PartitionKeys []struct {
				PartitionKey json.RawMessage `json:"partitionKey"`
				SizeInKB     int64           `json:"sizeInKB"`
			} `json:"partitionKeys"`
		} `json:"statistics"`
	}
	if err := json.Unmarshal(body, &props); err != nil {
		return StorageReport{}, fmt.Errorf("partitionstats: container %s: the statistics are not the JSON expected: %w", c.ID(), err)
	}
	r := StorageReport{Container: c.ID()}
	usage := wire.ResourceValues(resp.RawResponse.Header.Get(wire.HeaderResourceUsage))
	r.UsageKB, r.DocumentCount = usage["documentsSize"], usage["documentsCount"]
	r.QuotaKB = wire.ResourceValues(resp.RawResponse.Header.Get(wire.HeaderResourceQuota))["documentsSize"]
	for _, s := range props.Statistics {
		p := PhysicalPartition{ID: s.ID, SizeKB: s.SizeInKB, DocumentCount: s.DocumentCount, SampledDistinctKeys: s.Sampled}
		for _, k := range s.PartitionKeys {
			l := LogicalPartition{PhysicalPartition: s.ID, SizeKB: k.SizeInKB, Key: keyValues(k.PartitionKey)}
			p.Largest = append(p.Largest, l)
			r.Largest = append(r.Largest, l)
		}
		slices.SortStableFunc(p.Largest, bySize)
		r.Partitions = append(r.Partitions, p)
	}
	slices.SortFunc(r.Partitions, func(a, b PhysicalPartition) int { return compareIDs(a.ID, b.ID) })
	slices.SortStableFunc(r.Largest, bySize)
	for _, l := range r.Largest {
		if float64(l.SizeKB) >= o.WarnFraction*float64(o.LogicalLimitKB) {
			r.Warnings = append(r.Warnings, Warning{Logical: true, Key: l.Key, PhysicalPartition: l.PhysicalPartition, SizeKB: l.SizeKB, LimitKB: o.LogicalLimitKB})
		}
	}
	for _, p := range r.Partitions {
		if float64(p.SizeKB) >= o.WarnFraction*float64(o.PhysicalLimitKB) {
			r.Warnings = append(r.Warnings, Warning{PhysicalPartition: p.ID, SizeKB: p.SizeKB, LimitKB: o.PhysicalLimitKB})
		}
	}
	return r, nil
}

func bySize(a, b LogicalPartition) int {
	switch {
	case a.SizeKB > b.SizeKB:
		return -1
	case a.SizeKB < b.SizeKB:
		return 1
	}
	return 0
}

// compareIDs orders range ids numerically when both are numbers ("2" before "10").
func compareIDs(a, b string) int {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	if errA == nil && errB == nil {
		return x - y
	}
	return strings.Compare(a, b)
}

// keyValues reads a statistics partitionKey: an array of values, or (older answers) one value.
func keyValues(raw json.RawMessage) []any {
	var vals []any
	if err := json.Unmarshal(raw, &vals); err == nil {
		return vals
	}
	var v any
	if err := json.Unmarshal(raw, &v); err == nil {
		return []any{v}
	}
	return nil
}
