package cosmoskit

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/internal/plural"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Defaults and limits applied by ContainerSpec.
const (
	// DefaultTypePath is the type discriminator path that leads the default composite indexes.
	DefaultTypePath = "/type"
	// DefaultFullTextLanguage is FullTextSpec.DefaultLanguage when unset.
	DefaultFullTextLanguage = "en-US"

	maxPartitionKeyPaths = 3    // hierarchical partition keys have at most three levels
	maxFlatDimensions    = 505  // flat vector index limit
	maxVectorDimensions  = 4096 // quantizedFlat and diskANN limit
	maxCompositePaths    = 8    // paths per composite index
	minManualThroughput  = 400
	minAutoscaleMax      = 1000
)

// ContainerSpec describes a container for EnsureContainer with the Cosmos DB best-practice defaults
// filled in. Only ID and PartitionKeyPaths are required. Properties shows exactly what is sent.
type ContainerSpec struct {
	// ID is the container id: 1 to 255 characters (characters, not bytes: 255 of "€" is 765
	// bytes), none of / \ # ?, no trailing space, as the service requires.
	ID string

	// PartitionKeyPaths is the partition key: one path ("/tenantId") for a Hash key, or two or three
	// ("/tenantId", "/userId", "/sessionId") for a hierarchical (MultiHash) key, broadest first. Each
	// path starts with "/". The definition always carries Kind and Version 2 (large partition key
	// values, up to 2 KB), so every SDK reading it back sees an explicit kind. It cannot be changed
	// after creation.
	PartitionKeyPaths []string

	// TypePath is the type discriminator property that leads the default composite indexes, so that a
	// query filtering on the type and sorting by a SortPath is served by an index (write it as
	// WHERE c.type = @t ORDER BY c.type, c._ts DESC). Default: DefaultTypePath.
	TypePath string

	// SortPaths are the properties items of one type are listed by. For each, the default indexing
	// policy gets two composite indexes, (TypePath ASC, path ASC) and (TypePath ASC, path DESC), which
	// serve ORDER BY in either direction. Default: {"/_ts"} (most recently modified first).
	SortPaths []string

	// DisableTypeCompositeIndexes turns off the TypePath/SortPaths composite indexes.
	DisableTypeCompositeIndexes bool

	// CompositeIndexes are added to the default ones (2 to 8 paths each; Order defaults to ascending).
	CompositeIndexes [][]azcosmos.CompositeIndex

	// ExcludedPaths are left out of the range index, e.g. "/payload/*" for a large blob that is never
	// filtered on; each write then costs fewer RU. "/\"_etag\"/?" and every vector path are always
	// excluded.
	ExcludedPaths []string

	// IndexingPolicy, if set, replaces the default policy (TypePath/SortPaths/CompositeIndexes/
	// ExcludedPaths are then ignored). The vector and full-text settings below are still merged in:
	// vector paths are added to ExcludedPaths and vector/full-text indexes are added if missing.
	IndexingPolicy *azcosmos.IndexingPolicy

	// Vectors declares vector embeddings: the container's vector embedding policy plus one vector index
	// each, with the path excluded from the range index. Vector policies cannot be changed after
	// creation and need the account's vector search capability (EnableNoSQLVectorSearch).
	Vectors []VectorSpec

	// FullText, if set, declares full-text paths: the full-text policy plus a full-text index per path
	// (needs the account's EnableNoSQLFullTextSearch capability).
	FullText *FullTextSpec

	// DefaultTTL, if positive, expires items that much time after their last write (whole seconds).
	// Items may override it with a "ttl" property. Default: 0, no expiry.
	DefaultTTL time.Duration

	// EnableItemTTL turns TTL on without a container default, so only items with a "ttl" property
	// expire. Ignored when DefaultTTL is set.
	EnableItemTTL bool

	// UniqueKeys are unique key constraints, each a list of paths, unique within a logical partition.
	UniqueKeys [][]string

	// ManualThroughput provisions this many RU/s on the container (at least 400, a multiple of 100).
	// Fixed throughput is cheaper than autoscale when utilization stays above about 66%.
	ManualThroughput int32

	// ConflictResolution is the conflict resolution policy of a multi-write account: last writer
	// wins on a numeric property, or Custom. Default (zero value): last writer wins on /_ts. It is
	// always sent, with its defaults written out, and cannot be changed after creation. EnsureContainer
	// compares it with an existing container's only when it is set (not the zero value): a spec
	// that does not mention it accepts whatever policy the container was created with.
	ConflictResolution ConflictResolutionSpec

	// AutoscaleMaxThroughput provisions autoscale throughput scaling between 10% and 100% of this
	// maximum (at least 1000, a multiple of 1000): the better choice for variable load.
	//
	// Default for both: none, so the container uses its database's shared throughput, or the account
	// is serverless. Set at most one of the two.
	AutoscaleMaxThroughput int32

	// OnDrift is what EnsureContainer does when the container already exists and its indexing
	// policy, full-text policy or own throughput (when ManualThroughput or AutoscaleMaxThroughput
	// is set) differ from this spec: report them in ContainerResult.Drift (DriftReport, the
	// default), replace them (DriftApply), accept them (DriftIgnore) or refuse the container
	// (DriftRefuse). It is not sent.
	OnDrift DriftMode
}

// VectorSpec is one vector embedding in a ContainerSpec.
type VectorSpec struct {
	// Path is the property holding the vector, e.g. "/embedding". Required.
	Path string
	// Dimensions is the vector length; it must match your embedding model (1536 for
	// text-embedding-3-small and ada-002, 3072 for text-embedding-3-large). Required: at most 505 for a
	// flat index, 4096 otherwise.
	Dimensions int32
	// DataType defaults to azcosmos.VectorDataTypeFloat32.
	DataType azcosmos.VectorDataType
	// DistanceFunction defaults to azcosmos.VectorDistanceFunctionCosine (normalize embeddings).
	DistanceFunction azcosmos.VectorDistanceFunction
	// IndexType defaults to azcosmos.VectorIndexTypeQuantizedFlat (best up to about 50,000 vectors per
	// physical partition); use azcosmos.VectorIndexTypeDiskANN above that.
	IndexType azcosmos.VectorIndexType
}

// FullTextSpec declares full-text search paths in a ContainerSpec.
type FullTextSpec struct {
	// DefaultLanguage defaults to DefaultFullTextLanguage.
	DefaultLanguage string
	// Paths are the string properties to index for full-text search, e.g. "/description". Required.
	Paths []string
}

// DatabaseOptions are the options of EnsureDatabase. The zero value (and nil) provisions no database
// throughput: containers then provision their own, or the account is serverless.
type DatabaseOptions struct {
	// ManualThroughput shares this many RU/s between the database's containers (at least 400, a
	// multiple of 100). Shared throughput suits many small containers.
	ManualThroughput int32
	// AutoscaleMaxThroughput shares autoscale throughput (at least 1000, a multiple of 1000). Set at most
	// one of the two.
	AutoscaleMaxThroughput int32
}

// Properties returns the container properties EnsureContainer sends for s, or a *cosmoserr.ValidationError
// (matching cosmoserr.ErrInvalidSpec) describing the first problem. It does no I/O.
func (s ContainerSpec) Properties() (azcosmos.ContainerProperties, error) {
	if err := checkResourceID(s.ID); err != "" {
		return azcosmos.ContainerProperties{}, specBad("ID", "%s", err)
	}
	props := azcosmos.ContainerProperties{ID: s.ID}
	var err error
	if props.PartitionKeyDefinition, err = s.partitionKey(); err != nil {
		return props, err
	}
	var vectorIndexes []azcosmos.VectorIndex
	if props.VectorEmbeddingPolicy, vectorIndexes, err = s.vectorPolicy(); err != nil {
		return props, err
	}
	var fullTextIndexes []azcosmos.FullTextIndex
	if props.FullTextPolicy, fullTextIndexes, err = s.fullTextPolicy(); err != nil {
		return props, err
	}
	ip, err := s.indexingPolicy(specBad)
	if err != nil {
		return props, err
	}
	props.IndexingPolicy = s.mergeSearchIndexes(ip, vectorIndexes, fullTextIndexes)
	if props.DefaultTimeToLive, err = s.timeToLive(); err != nil {
		return props, err
	}
	if props.UniqueKeyPolicy, err = s.uniqueKeyPolicy(); err != nil {
		return props, err
	}
	if props.ConflictResolutionPolicy, err = s.ConflictResolution.policy(specBad); err != nil {
		return props, err
	}
	if _, err := throughput("ContainerSpec", s.ManualThroughput, s.AutoscaleMaxThroughput); err != nil {
		return props, err
	}
	return props, nil
}

// specBad is the refusal of a ContainerSpec field.
func specBad(field, format string, args ...any) error {
	return specError("ContainerSpec."+field, fmt.Sprintf(format, args...))
}

// partitionKey checks PartitionKeyPaths and returns the definition sent: Hash for one path,
// MultiHash for two or three, always Version 2.
func (s ContainerSpec) partitionKey() (azcosmos.PartitionKeyDefinition, error) {
	switch n := len(s.PartitionKeyPaths); {
	case n == 0:
		return azcosmos.PartitionKeyDefinition{}, specBad("PartitionKeyPaths", "is required: choose a high-cardinality property your queries filter on, e.g. /tenantId (up to three for a hierarchical key)")
	case n > maxPartitionKeyPaths:
		return azcosmos.PartitionKeyDefinition{}, specBad("PartitionKeyPaths", "has %d paths; a hierarchical partition key has at most %d levels", n, maxPartitionKeyPaths)
	}
	for i, p := range s.PartitionKeyPaths {
		if msg := checkPath(p, false); msg != "" {
			return azcosmos.PartitionKeyDefinition{}, specBad(fmt.Sprintf("PartitionKeyPaths[%d]", i), "%s", msg)
		}
		if j := slices.Index(s.PartitionKeyPaths[:i], p); j >= 0 {
			return azcosmos.PartitionKeyDefinition{}, specBad(fmt.Sprintf("PartitionKeyPaths[%d]", i), "%q repeats PartitionKeyPaths[%d]", p, j)
		}
	}
	def := azcosmos.PartitionKeyDefinition{Kind: azcosmos.PartitionKeyKindHash, Paths: slices.Clone(s.PartitionKeyPaths), Version: 2}
	if len(s.PartitionKeyPaths) > 1 {
		def.Kind = azcosmos.PartitionKeyKindMultiHash
	}
	return def, nil
}

// vectorPolicy checks Vectors and returns the vector embedding policy (nil for none) and one
// vector index per embedding.
func (s ContainerSpec) vectorPolicy() (*azcosmos.VectorEmbeddingPolicy, []azcosmos.VectorIndex, error) {
	var embeddings []azcosmos.VectorEmbedding
	var indexes []azcosmos.VectorIndex
	for i, v := range s.Vectors {
		e, idx, err := s.vector(i, v)
		if err != nil {
			return nil, nil, err
		}
		embeddings = append(embeddings, e)
		indexes = append(indexes, idx)
	}
	if len(embeddings) == 0 {
		return nil, nil, nil
	}
	return &azcosmos.VectorEmbeddingPolicy{VectorEmbeddings: embeddings}, indexes, nil
}

// vector checks Vectors[i] and returns its embedding and index with the defaults written out.
func (s ContainerSpec) vector(i int, v VectorSpec) (azcosmos.VectorEmbedding, azcosmos.VectorIndex, error) {
	field := fmt.Sprintf("Vectors[%d]", i)
	fail := func(sub, format string, args ...any) (azcosmos.VectorEmbedding, azcosmos.VectorIndex, error) {
		return azcosmos.VectorEmbedding{}, azcosmos.VectorIndex{}, specBad(field+sub, format, args...)
	}
	if msg := checkPath(v.Path, false); msg != "" {
		return fail(".Path", "%s", msg)
	}
	for j, w := range s.Vectors[:i] {
		if w.Path == v.Path {
			return fail(".Path", "%q repeats Vectors[%d]", v.Path, j)
		}
	}
	if slices.Contains(s.PartitionKeyPaths, v.Path) {
		return fail(".Path", "%q is a partition key path", v.Path)
	}
	dt := v.DataType
	if dt == "" {
		dt = azcosmos.VectorDataTypeFloat32
	}
	if !slices.Contains([]azcosmos.VectorDataType{azcosmos.VectorDataTypeFloat32, azcosmos.VectorDataTypeFloat16, azcosmos.VectorDataTypeInt8, azcosmos.VectorDataTypeUint8}, dt) {
		return fail(".DataType", "%q is not one of float32, float16, int8, uint8", dt)
	}
	df := v.DistanceFunction
	if df == "" {
		df = azcosmos.VectorDistanceFunctionCosine
	}
	if !slices.Contains([]azcosmos.VectorDistanceFunction{azcosmos.VectorDistanceFunctionCosine, azcosmos.VectorDistanceFunctionDotProduct, azcosmos.VectorDistanceFunctionEuclidean}, df) {
		return fail(".DistanceFunction", "%q is not one of cosine, dotproduct, euclidean", df)
	}
	it := v.IndexType
	if it == "" {
		it = azcosmos.VectorIndexTypeQuantizedFlat
	}
	limit := int32(maxVectorDimensions)
	switch it {
	case azcosmos.VectorIndexTypeFlat:
		limit = maxFlatDimensions
	case azcosmos.VectorIndexTypeQuantizedFlat, azcosmos.VectorIndexTypeDiskANN:
	default:
		return fail(".IndexType", "%q is not one of flat, quantizedFlat, diskANN", it)
	}
	if v.Dimensions <= 0 {
		return fail(".Dimensions", "is %d; set it to your embedding model's output size (e.g. 1536 for text-embedding-3-small)", v.Dimensions)
	}
	if v.Dimensions > limit {
		return fail(".Dimensions", "%d exceeds the %s index limit of %d dimensions", v.Dimensions, it, limit)
	}
	return azcosmos.VectorEmbedding{Path: v.Path, DataType: dt, DistanceFunction: df, Dimensions: v.Dimensions},
		azcosmos.VectorIndex{Path: v.Path, Type: it}, nil
}

// fullTextPolicy checks FullText and returns the full-text policy (nil for none) and one
// full-text index per path.
func (s ContainerSpec) fullTextPolicy() (*azcosmos.FullTextPolicy, []azcosmos.FullTextIndex, error) {
	if s.FullText == nil {
		return nil, nil, nil
	}
	if len(s.FullText.Paths) == 0 {
		return nil, nil, specBad("FullText.Paths", "is empty; list the string properties to index, e.g. /description")
	}
	lang := s.FullText.DefaultLanguage
	if lang == "" {
		lang = DefaultFullTextLanguage
	}
	policy := &azcosmos.FullTextPolicy{DefaultLanguage: lang}
	var indexes []azcosmos.FullTextIndex
	for i, p := range s.FullText.Paths {
		if msg := checkPath(p, false); msg != "" {
			return nil, nil, specBad(fmt.Sprintf("FullText.Paths[%d]", i), "%s", msg)
		}
		policy.FullTextPaths = append(policy.FullTextPaths, azcosmos.FullTextPath{Path: p, Language: lang})
		indexes = append(indexes, azcosmos.FullTextIndex{Path: p})
	}
	return policy, indexes, nil
}

// mergeSearchIndexes adds to ip what the vector and full-text settings need: every vector path
// excluded from the range index, and the vector and full-text indexes it does not have yet.
func (s ContainerSpec) mergeSearchIndexes(ip *azcosmos.IndexingPolicy, vectorIndexes []azcosmos.VectorIndex, fullTextIndexes []azcosmos.FullTextIndex) *azcosmos.IndexingPolicy {
	for _, v := range s.Vectors {
		if ex := strings.TrimSuffix(v.Path, "/") + "/*"; !slices.ContainsFunc(ip.ExcludedPaths, func(e azcosmos.ExcludedPath) bool { return e.Path == ex }) {
			ip.ExcludedPaths = append(ip.ExcludedPaths, azcosmos.ExcludedPath{Path: ex})
		}
	}
	for _, vi := range vectorIndexes {
		if !slices.ContainsFunc(ip.VectorIndexes, func(e azcosmos.VectorIndex) bool { return e.Path == vi.Path }) {
			ip.VectorIndexes = append(ip.VectorIndexes, vi)
		}
	}
	for _, fi := range fullTextIndexes {
		if !slices.ContainsFunc(ip.FullTextIndexes, func(e azcosmos.FullTextIndex) bool { return e.Path == fi.Path }) {
			ip.FullTextIndexes = append(ip.FullTextIndexes, fi)
		}
	}
	return ip
}

// timeToLive checks DefaultTTL and EnableItemTTL and returns the container's default time to
// live (nil: no expiry; -1: per-item ttl only).
func (s ContainerSpec) timeToLive() (*int32, error) {
	switch {
	case s.DefaultTTL < 0:
		return nil, specBad("DefaultTTL", "is negative; use 0 for no expiry, or EnableItemTTL for per-item ttl only")
	case s.DefaultTTL > 0:
		if s.DefaultTTL%time.Second != 0 {
			return nil, specBad("DefaultTTL", "%v is not a whole number of seconds", s.DefaultTTL)
		}
		secs := s.DefaultTTL / time.Second
		if secs > math.MaxInt32 {
			return nil, specBad("DefaultTTL", "%v is longer than the maximum of %d seconds", s.DefaultTTL, math.MaxInt32)
		}
		ttl := int32(secs)
		return &ttl, nil
	case s.EnableItemTTL:
		ttl := int32(-1)
		return &ttl, nil
	}
	return nil, nil
}

// uniqueKeyPolicy checks UniqueKeys and returns the unique key policy (nil for none).
func (s ContainerSpec) uniqueKeyPolicy() (*azcosmos.UniqueKeyPolicy, error) {
	if len(s.UniqueKeys) == 0 {
		return nil, nil
	}
	ukp := &azcosmos.UniqueKeyPolicy{}
	for i, paths := range s.UniqueKeys {
		if len(paths) == 0 {
			return nil, specBad(fmt.Sprintf("UniqueKeys[%d]", i), "is empty; list one or more paths")
		}
		for j, p := range paths {
			if msg := checkPath(p, false); msg != "" {
				return nil, specBad(fmt.Sprintf("UniqueKeys[%d][%d]", i, j), "%s", msg)
			}
		}
		ukp.UniqueKeys = append(ukp.UniqueKeys, azcosmos.UniqueKey{Paths: slices.Clone(paths)})
	}
	return ukp, nil
}

// indexingPolicy returns a fresh indexing policy: the caller's copy, or the defaults.
func (s ContainerSpec) indexingPolicy(bad func(field, format string, args ...any) error) (*azcosmos.IndexingPolicy, error) {
	if s.IndexingPolicy != nil {
		ip := *s.IndexingPolicy
		ip.IncludedPaths = slices.Clone(ip.IncludedPaths)
		ip.ExcludedPaths = slices.Clone(ip.ExcludedPaths)
		ip.CompositeIndexes = slices.Clone(ip.CompositeIndexes)
		ip.VectorIndexes = slices.Clone(ip.VectorIndexes)
		ip.FullTextIndexes = slices.Clone(ip.FullTextIndexes)
		return &ip, nil
	}
	ip := &azcosmos.IndexingPolicy{
		Automatic:     true,
		IndexingMode:  azcosmos.IndexingModeConsistent,
		IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}},
		ExcludedPaths: []azcosmos.ExcludedPath{{Path: `/"_etag"/?`}},
	}
	for i, p := range s.ExcludedPaths {
		if msg := checkPath(p, true); msg != "" {
			return nil, bad(fmt.Sprintf("ExcludedPaths[%d]", i), "%s", msg)
		}
		ip.ExcludedPaths = append(ip.ExcludedPaths, azcosmos.ExcludedPath{Path: p})
	}
	if !s.DisableTypeCompositeIndexes {
		typePath := s.TypePath
		if typePath == "" {
			typePath = DefaultTypePath
		}
		if msg := checkPath(typePath, false); msg != "" {
			return nil, bad("TypePath", "%s", msg)
		}
		sortPaths := s.SortPaths
		if len(sortPaths) == 0 {
			sortPaths = []string{"/_ts"}
		}
		for i, p := range sortPaths {
			if msg := checkPath(p, false); msg != "" {
				return nil, bad(fmt.Sprintf("SortPaths[%d]", i), "%s", msg)
			}
			if p == typePath {
				return nil, bad(fmt.Sprintf("SortPaths[%d]", i), "%q is the TypePath", p)
			}
			ip.CompositeIndexes = append(ip.CompositeIndexes,
				[]azcosmos.CompositeIndex{{Path: typePath, Order: azcosmos.CompositeIndexAscending}, {Path: p, Order: azcosmos.CompositeIndexAscending}},
				[]azcosmos.CompositeIndex{{Path: typePath, Order: azcosmos.CompositeIndexAscending}, {Path: p, Order: azcosmos.CompositeIndexDescending}})
		}
	}
	for i, ci := range s.CompositeIndexes {
		field := fmt.Sprintf("CompositeIndexes[%d]", i)
		if len(ci) < 2 || len(ci) > maxCompositePaths {
			return nil, bad(field, "has %s; a composite index has 2 to %d", plural.Count(len(ci), "path", "paths"), maxCompositePaths)
		}
		out := make([]azcosmos.CompositeIndex, len(ci))
		for j, c := range ci {
			if msg := checkPath(c.Path, false); msg != "" {
				return nil, bad(fmt.Sprintf("%s[%d].Path", field, j), "%s", msg)
			}
			switch c.Order {
			case "":
				c.Order = azcosmos.CompositeIndexAscending
			case azcosmos.CompositeIndexAscending, azcosmos.CompositeIndexDescending:
			default:
				return nil, bad(fmt.Sprintf("%s[%d].Order", field, j), "%q is not ascending or descending", c.Order)
			}
			out[j] = c
		}
		ip.CompositeIndexes = append(ip.CompositeIndexes, out)
	}
	return ip, nil
}

// throughput returns the offer for a manual/autoscale pair of spec (a type name), or its refusal.
func throughput(spec string, manual, autoscale int32) (*azcosmos.ThroughputProperties, error) {
	bad := func(field, format string, args ...any) error {
		return specError(spec+"."+field, fmt.Sprintf(format, args...))
	}
	switch {
	case manual != 0 && autoscale != 0:
		return nil, bad("ManualThroughput, AutoscaleMaxThroughput", "set at most one of them")
	case manual != 0:
		if manual < minManualThroughput || manual%100 != 0 {
			return nil, bad("ManualThroughput", "%d must be at least %d RU/s and a multiple of 100", manual, minManualThroughput)
		}
		tp := azcosmos.NewManualThroughputProperties(manual)
		return &tp, nil
	case autoscale != 0:
		if autoscale < minAutoscaleMax || autoscale%1000 != 0 {
			return nil, bad("AutoscaleMaxThroughput", "%d must be at least %d RU/s and a multiple of 1000", autoscale, minAutoscaleMax)
		}
		tp := azcosmos.NewAutoscaleThroughputProperties(autoscale)
		return &tp, nil
	}
	return nil, nil
}

// checkPath validates a JSON path like "/a/b". With wildcard, a trailing "/*" or "/?" is allowed (index
// paths); otherwise the path must name a property.
func checkPath(p string, wildcard bool) string {
	switch {
	case p == "":
		return "is empty; paths look like /tenantId"
	case p[0] != '/':
		return fmt.Sprintf("%q must start with /", p)
	case p == "/":
		return `"/" names the whole document; name a property, e.g. /tenantId`
	}
	body := p
	if wildcard {
		body = strings.TrimSuffix(strings.TrimSuffix(p, "/*"), "/?")
		if body == "" {
			return "" // "/*"
		}
	}
	if strings.HasSuffix(body, "/") || strings.Contains(body, "//") {
		return fmt.Sprintf("%q has an empty segment", p)
	}
	if strings.ContainsAny(body, "*?") {
		return fmt.Sprintf("%q contains a wildcard", p)
	}
	return ""
}

// checkResourceID validates a database or container id by the service's rules (wire.NameProblem:
// at most 255 characters, none of / \ ? #, no trailing space); the reason never quotes the id.
func checkResourceID(id string) string { return wire.NameProblem(id) }
