package cosmoskit

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/cardinality"
	"github.com/cosmoskit/cosmoskit-go/internal/provision"
)

// DriftMode is what EnsureContainer does when an existing container's changeable settings (its
// indexing policy, its own throughput, its full-text policy) differ from the spec.
type DriftMode int

const (
	// DriftReport (the default) lists the differing settings in ContainerResult.Drift, changes
	// nothing, and returns the container's handle with a nil error.
	DriftReport DriftMode = iota
	// DriftApply replaces the differing settings with the spec's (a container replace for the
	// indexing and full-text policies, which re-indexes in the background; a throughput replace)
	// and lists them in ContainerResult.Applied. A switch between manual and autoscale throughput
	// is not applied: then nothing is, and the differences are in ContainerResult.Drift.
	DriftApply
	// DriftIgnore accepts the existing settings without reading them (no throughput read).
	DriftIgnore
	// DriftRefuse treats a difference like one in a setting that cannot change: EnsureContainer
	// returns a *cosmoserr.MismatchError (matching cosmoserr.ErrContainerMismatch) listing the
	// differing settings, and no handle. For deployment checks that must not run on a drifted
	// container.
	DriftRefuse
)

func (m DriftMode) String() string {
	switch m {
	case DriftReport:
		return "report"
	case DriftApply:
		return "apply"
	case DriftIgnore:
		return "ignore"
	case DriftRefuse:
		return "refuse"
	}
	return fmt.Sprintf("DriftMode(%d)", int(m))
}

const etagPath = `/"_etag"/?`

// immutableDifferences lists what differs in the settings that cannot change after creation: the
// partition key, the vector embeddings (when the spec declares some) and the conflict resolution
// policy (when the spec declares one; want's is nil otherwise).
func immutableDifferences(want, got azcosmos.ContainerProperties) []cosmoserr.Difference {
	var ds []cosmoserr.Difference
	if !slices.Equal(want.PartitionKeyDefinition.Paths, got.PartitionKeyDefinition.Paths) {
		ds = append(ds, cosmoserr.Difference{Field: "PartitionKeyPaths",
			Want: strings.Join(want.PartitionKeyDefinition.Paths, ","), Have: strings.Join(got.PartitionKeyDefinition.Paths, ",")})
	}
	if want.VectorEmbeddingPolicy != nil {
		var g []azcosmos.VectorEmbedding
		if got.VectorEmbeddingPolicy != nil {
			g = got.VectorEmbeddingPolicy.VectorEmbeddings
		}
		if w := want.VectorEmbeddingPolicy.VectorEmbeddings; !slices.Equal(g, w) {
			ds = append(ds, cosmoserr.Difference{Field: "Vectors", Want: embeddings(w), Have: embeddings(g)})
		}
	}
	if want.ConflictResolutionPolicy != nil && got.ConflictResolutionPolicy != nil && conflictPolicyMismatch(want.ConflictResolutionPolicy, got.ConflictResolutionPolicy) != "" {
		g := *got.ConflictResolutionPolicy
		if g.Mode == "" {
			g.Mode = azcosmos.ConflictResolutionModeLastWriteWins
		}
		ds = append(ds, cosmoserr.Difference{Field: "ConflictResolution", Want: conflictPolicy(*want.ConflictResolutionPolicy), Have: conflictPolicy(g)})
	}
	return ds
}

func embeddings(vs []azcosmos.VectorEmbedding) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprintf("%s %s %s %d", v.Path, v.DataType, v.DistanceFunction, v.Dimensions)
	}
	return orNone(strings.Join(parts, "; "))
}

func conflictPolicy(p azcosmos.ConflictResolutionPolicy) string {
	if p.Mode == azcosmos.ConflictResolutionModeCustom {
		if p.ResolutionProcedure == "" {
			return "Custom (conflicts feed)"
		}
		return "Custom " + p.ResolutionProcedure
	}
	return string(p.Mode) + " " + p.ResolutionPath
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// policyDifferences lists what differs in the indexing and full-text policies.
func policyDifferences(want, got azcosmos.ContainerProperties) []cosmoserr.Difference {
	var ds []cosmoserr.Difference
	add := func(field, w, h string) {
		if w != h {
			ds = append(ds, cosmoserr.Difference{Field: field, Want: orNone(w), Have: orNone(h)})
		}
	}
	w, g := want.IndexingPolicy, got.IndexingPolicy
	if w == nil {
		w = &azcosmos.IndexingPolicy{}
	}
	if g == nil {
		g = &azcosmos.IndexingPolicy{}
	}
	// An unset mode is the service's default, consistent. Automatic is not compared: the service
	// treats automatic=false as deprecated and may answer true whatever was sent.
	mode := func(m azcosmos.IndexingMode) string {
		if m == "" {
			return strings.ToLower(string(azcosmos.IndexingModeConsistent))
		}
		return strings.ToLower(string(m))
	}
	add("IndexingPolicy.IndexingMode", mode(w.IndexingMode), mode(g.IndexingMode))
	add("IndexingPolicy.IncludedPaths", pathSet(w.IncludedPaths, func(p azcosmos.IncludedPath) string { return p.Path }),
		pathSet(g.IncludedPaths, func(p azcosmos.IncludedPath) string { return p.Path }))
	// The service always excludes /"_etag"/?: whether a policy names it changes nothing.
	excluded := func(ps []azcosmos.ExcludedPath) string {
		return pathSet(ps, func(p azcosmos.ExcludedPath) string {
			if p.Path == etagPath {
				return ""
			}
			return p.Path
		})
	}
	add("IndexingPolicy.ExcludedPaths", excluded(w.ExcludedPaths), excluded(g.ExcludedPaths))
	add("IndexingPolicy.CompositeIndexes", composites(w.CompositeIndexes), composites(g.CompositeIndexes))
	add("IndexingPolicy.VectorIndexes", pathSet(w.VectorIndexes, func(v azcosmos.VectorIndex) string { return v.Path + " " + string(v.Type) }),
		pathSet(g.VectorIndexes, func(v azcosmos.VectorIndex) string { return v.Path + " " + string(v.Type) }))
	add("IndexingPolicy.FullTextIndexes", pathSet(w.FullTextIndexes, func(f azcosmos.FullTextIndex) string { return f.Path }),
		pathSet(g.FullTextIndexes, func(f azcosmos.FullTextIndex) string { return f.Path }))
	add("FullText", fullText(want.FullTextPolicy), fullText(got.FullTextPolicy))
	return ds
}

// pathSet is the sorted, de-duplicated set of name(x) over xs ("" names are left out), joined.
func pathSet[T any](xs []T, name func(T) string) string {
	var out []string
	for _, x := range xs {
		if n := name(x); n != "" {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return strings.Join(slices.Compact(out), ",")
}

func composites(cs [][]azcosmos.CompositeIndex) string {
	var out []string
	for _, c := range cs {
		parts := make([]string, len(c))
		for i, p := range c {
			order := strings.ToLower(string(p.Order))
			if order == "" {
				order = string(azcosmos.CompositeIndexAscending)
			}
			parts[i] = p.Path + " " + order
		}
		out = append(out, "("+strings.Join(parts, ", ")+")")
	}
	slices.Sort(out)
	return strings.Join(slices.Compact(out), " ")
}

func fullText(p *azcosmos.FullTextPolicy) string {
	if p == nil {
		return ""
	}
	return p.DefaultLanguage + ": " + pathSet(p.FullTextPaths, func(f azcosmos.FullTextPath) string { return f.Path + " " + f.Language })
}

// throughputDifference compares the spec's own throughput (when it declares one) with the
// container's offer; canApply is false when the container has no offer of its own (it shares its
// database's) or the spec switches between manual and autoscale, which EnsureContainer does not do.
func throughputDifference(ctx context.Context, cc *azcosmos.ContainerClient, spec ContainerSpec) (d *cosmoserr.Difference, canApply bool, err error) {
	if spec.ManualThroughput == 0 && spec.AutoscaleMaxThroughput == 0 {
		return nil, false, nil
	}
	want := describeThroughput(spec.ManualThroughput, spec.AutoscaleMaxThroughput)
	resp, err := cc.ReadThroughput(ctx, nil)
	if provision.Status(err) == http.StatusNotFound {
		return &cosmoserr.Difference{Field: "Throughput", Want: want, Have: "shared with the database"}, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var manual, auto int32
	if resp.ThroughputProperties != nil {
		if m, ok := resp.ThroughputProperties.ManualThroughput(); ok {
			manual = m
		}
		if a, ok := resp.ThroughputProperties.AutoscaleMaxThroughput(); ok {
			auto, manual = a, 0
		}
	}
	if manual == spec.ManualThroughput && auto == spec.AutoscaleMaxThroughput {
		return nil, false, nil
	}
	// Switching between manual and autoscale needs the migrate API (a plain replace is refused):
	// reported, not applied.
	sameMode := (auto > 0) == (spec.AutoscaleMaxThroughput > 0)
	return &cosmoserr.Difference{Field: "Throughput", Want: want, Have: describeThroughput(manual, auto)}, sameMode, nil
}

func describeThroughput(manual, auto int32) string {
	switch {
	case auto > 0:
		return fmt.Sprintf("autoscale max %d RU/s", auto)
	case manual > 0:
		return fmt.Sprintf("manual %d RU/s", manual)
	}
	return "none"
}

// drift checks an existing container against the spec: immutable differences are a
// *cosmoserr.MismatchError; changeable ones are reported, applied, ignored or refused per
// spec.OnDrift.
func (c *Client) drift(ctx context.Context, cc *azcosmos.ContainerClient, db string, spec ContainerSpec, want, got azcosmos.ContainerProperties) (ContainerResult, error) {
	if ds := immutableDifferences(want, got); len(ds) > 0 {
		return ContainerResult{}, &cosmoserr.MismatchError{Database: db, Container: spec.ID, Differences: ds}
	}
	if spec.OnDrift == DriftIgnore {
		return ContainerResult{}, nil
	}
	pd := policyDifferences(want, got)
	td, canApply, err := throughputDifference(ctx, cc, spec)
	if err != nil {
		return ContainerResult{}, provisionError(cosmoserr.OpReadThroughput, db, spec.ID, err)
	}
	ds := pd
	if td != nil {
		ds = append(ds, *td)
	}
	switch {
	case len(ds) == 0:
		return ContainerResult{}, nil
	case spec.OnDrift == DriftRefuse:
		return ContainerResult{}, &cosmoserr.MismatchError{Database: db, Container: spec.ID, Differences: ds}
	case spec.OnDrift != DriftApply || (td != nil && !canApply):
		return ContainerResult{Drift: ds}, nil
	}
	if len(pd) > 0 {
		props := got
		props.IndexingPolicy = want.IndexingPolicy
		props.FullTextPolicy = want.FullTextPolicy
		if _, err := cc.Replace(ctx, props, nil); err != nil {
			return ContainerResult{}, provisionError(cosmoserr.OpReplaceContainer, db, spec.ID, err)
		}
	}
	if td != nil {
		tp, _ := throughput(spec.ID, spec.ManualThroughput, spec.AutoscaleMaxThroughput)
		if _, err := cc.ReplaceThroughput(ctx, *tp, nil); err != nil {
			return ContainerResult{}, provisionError(cosmoserr.OpReplaceThroughput, db, spec.ID, err)
		}
	}
	c.logger().LogAttrs(ctx, slog.LevelInfo, "cosmoskit: container settings replaced to match the spec",
		slog.String("db.namespace", db), slog.String("db.collection.name", spec.ID), slog.Any("fields", fields(ds)))
	return ContainerResult{Applied: ds}, nil
}

func fields(ds []cosmoserr.Difference) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Field
	}
	return out
}

// warnLowCardinality logs a warning when a container is created with a partition key path known
// to have few distinct values.
func (c *Client) warnLowCardinality(ctx context.Context, db string, spec ContainerSpec) {
	for _, p := range spec.PartitionKeyPaths[:1] {
		if cardinality.LowPath(p) {
			c.logger().LogAttrs(ctx, slog.LevelWarn, "cosmoskit: partition key path usually has few distinct values",
				slog.String("db.namespace", db), slog.String("db.collection.name", spec.ID), slog.String("partition_key_path", p),
				slog.String("advice", "a key with few values concentrates storage (20 GB per logical partition) and throughput (10,000 RU/s per logical partition) on a few partitions; prefer a high-cardinality key such as a tenant, user or order id, or a hierarchical key"))
		}
	}
}

// logger is the client's Config.Logger (slog.Default when unset or for NewFromClient).
func (c *Client) logger() *slog.Logger {
	if c.entry != nil && c.entry.logger != nil {
		return c.entry.logger
	}
	return slog.Default()
}
