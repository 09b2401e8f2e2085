package cosmoskit

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

func TestContainerSpecRejects(t *testing.T) {
	pk := []string{"/pk"}
	tests := []struct {
		name      string
		spec      ContainerSpec
		wantField string
		wantText  string
	}{
		{"no id", ContainerSpec{PartitionKeyPaths: pk}, "ID", "empty"},
		{"id with slash", ContainerSpec{ID: "a/b", PartitionKeyPaths: pk}, "ID", "/ \\ ? #"},
		{"id with hash", ContainerSpec{ID: "a#b", PartitionKeyPaths: pk}, "ID", "/ \\ ? #"},
		{"id too long", ContainerSpec{ID: strings.Repeat("a", 256), PartitionKeyPaths: pk}, "ID", "at most 255"},
		{"no partition key", ContainerSpec{ID: "c"}, "PartitionKeyPaths", "is required"},
		{"four key paths", ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/a", "/b", "/c", "/d"}}, "PartitionKeyPaths", "at most 3 levels"},
		{"empty key path", ContainerSpec{ID: "c", PartitionKeyPaths: []string{""}}, "PartitionKeyPaths[0]", "is empty"},
		{"key path without slash", ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/a", "tenantId"}}, "PartitionKeyPaths[1]", "must start with /"},
		{"key path root", ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/"}}, "PartitionKeyPaths[0]", "whole document"},
		{"key path trailing slash", ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/a/"}}, "PartitionKeyPaths[0]", "empty segment"},
		{"key path wildcard", ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/a/*"}}, "PartitionKeyPaths[0]", "wildcard"},
		{"duplicate key path", ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/a", "/a"}}, "PartitionKeyPaths[1]", "repeats"},
		{"vector without dims", ContainerSpec{ID: "c", PartitionKeyPaths: pk, Vectors: []VectorSpec{{Path: "/v"}}}, "Vectors[0].Dimensions", "embedding model"},
		{"vector negative dims", ContainerSpec{ID: "c", PartitionKeyPaths: pk, Vectors: []VectorSpec{{Path: "/v", Dimensions: -3}}}, "Vectors[0].Dimensions", "is -3"},
		{"flat over 505", ContainerSpec{ID: "c", PartitionKeyPaths: pk, Vectors: []VectorSpec{{Path: "/v", Dimensions: 506, IndexType: azcosmos.VectorIndexTypeFlat}}}, "Vectors[0].Dimensions", "flat index limit of 505"},
		{"quantized over 4096", ContainerSpec{ID: "c", PartitionKeyPaths: pk, Vectors: []VectorSpec{{Path: "/v", Dimensions: 4097}}}, "Vectors[0].Dimensions", "4096"},
		{"vector bad path", ContainerSpec{ID: "c", PartitionKeyPaths: pk, Vectors: []VectorSpec{{Path: "v", Dimensions: 3}}}, "Vectors[0].Path", "must start with /"},
		{"vector duplicate path", ContainerSpec{ID: "c", PartitionKeyPaths: pk, Vectors: []VectorSpec{{Path: "/v", Dimensions: 3}, {Path: "/v", Dimensions: 3}}}, "Vectors[1].Path", "repeats"},
		{"vector on key path", ContainerSpec{ID: "c", PartitionKeyPaths: pk, Vectors: []VectorSpec{{Path: "/pk", Dimensions: 3}}}, "Vectors[0].Path", "partition key"},
		{"vector bad type", ContainerSpec{ID: "c", PartitionKeyPaths: pk, Vectors: []VectorSpec{{Path: "/v", Dimensions: 3, DataType: "float64"}}}, "Vectors[0].DataType", "float64"},
		{"vector bad distance", ContainerSpec{ID: "c", PartitionKeyPaths: pk, Vectors: []VectorSpec{{Path: "/v", Dimensions: 3, DistanceFunction: "manhattan"}}}, "Vectors[0].DistanceFunction", "manhattan"},
		{"vector bad index", ContainerSpec{ID: "c", PartitionKeyPaths: pk, Vectors: []VectorSpec{{Path: "/v", Dimensions: 3, IndexType: "hnsw"}}}, "Vectors[0].IndexType", "hnsw"},
		{"full text without paths", ContainerSpec{ID: "c", PartitionKeyPaths: pk, FullText: &FullTextSpec{}}, "FullText.Paths", "is empty"},
		{"negative ttl", ContainerSpec{ID: "c", PartitionKeyPaths: pk, DefaultTTL: -time.Second}, "DefaultTTL", "negative"},
		{"fractional ttl", ContainerSpec{ID: "c", PartitionKeyPaths: pk, DefaultTTL: 1500 * time.Millisecond}, "DefaultTTL", "whole number of seconds"},
		{"empty unique key", ContainerSpec{ID: "c", PartitionKeyPaths: pk, UniqueKeys: [][]string{{}}}, "UniqueKeys[0]", "is empty"},
		{"bad unique key path", ContainerSpec{ID: "c", PartitionKeyPaths: pk, UniqueKeys: [][]string{{"/a", "b"}}}, "UniqueKeys[0][1]", "must start with /"},
		{"both throughputs", ContainerSpec{ID: "c", PartitionKeyPaths: pk, ManualThroughput: 400, AutoscaleMaxThroughput: 1000}, "ManualThroughput, AutoscaleMaxThroughput", "at most one"},
		{"manual too low", ContainerSpec{ID: "c", PartitionKeyPaths: pk, ManualThroughput: 300}, "ManualThroughput", "at least 400"},
		{"manual not hundreds", ContainerSpec{ID: "c", PartitionKeyPaths: pk, ManualThroughput: 450}, "ManualThroughput", "multiple of 100"},
		{"autoscale not thousands", ContainerSpec{ID: "c", PartitionKeyPaths: pk, AutoscaleMaxThroughput: 1500}, "AutoscaleMaxThroughput", "multiple of 1000"},
		{"bad excluded path", ContainerSpec{ID: "c", PartitionKeyPaths: pk, ExcludedPaths: []string{"payload/*"}}, "ExcludedPaths[0]", "must start with /"},
		{"bad type path", ContainerSpec{ID: "c", PartitionKeyPaths: pk, TypePath: "type"}, "TypePath", "must start with /"},
		{"sort path is type path", ContainerSpec{ID: "c", PartitionKeyPaths: pk, SortPaths: []string{"/type"}}, "SortPaths[0]", "TypePath"},
		{"composite with one path", ContainerSpec{ID: "c", PartitionKeyPaths: pk, CompositeIndexes: [][]azcosmos.CompositeIndex{{{Path: "/a"}}}}, "CompositeIndexes[0]", "2 to 8"},
		{"conflict nested path", ContainerSpec{ID: "c", PartitionKeyPaths: pk, ConflictResolution: ConflictResolutionSpec{Path: "/a/b"}}, "ConflictResolution.Path", "one top-level property"},
		{"conflict path without slash", ContainerSpec{ID: "c", PartitionKeyPaths: pk, ConflictResolution: ConflictResolutionSpec{Path: "version"}}, "ConflictResolution.Path", "one top-level property"},
		{"conflict lww procedure", ContainerSpec{ID: "c", PartitionKeyPaths: pk, ConflictResolution: ConflictResolutionSpec{Procedure: "dbs/d/colls/c/sprocs/p"}}, "ConflictResolution.Procedure", "Custom"},
		{"conflict custom path", ContainerSpec{ID: "c", PartitionKeyPaths: pk, ConflictResolution: ConflictResolutionSpec{Mode: azcosmos.ConflictResolutionModeCustom, Path: "/v"}}, "ConflictResolution.Path", "Custom mode"},
		{"conflict custom bad procedure", ContainerSpec{ID: "c", PartitionKeyPaths: pk, ConflictResolution: ConflictResolutionSpec{Mode: azcosmos.ConflictResolutionModeCustom, Procedure: "merge"}}, "ConflictResolution.Procedure", "stored procedure link"},
		{"conflict bad mode", ContainerSpec{ID: "c", PartitionKeyPaths: pk, ConflictResolution: ConflictResolutionSpec{Mode: "FirstWriterWins"}}, "ConflictResolution.Mode", "FirstWriterWins"},
		{"composite bad order", ContainerSpec{ID: "c", PartitionKeyPaths: pk, CompositeIndexes: [][]azcosmos.CompositeIndex{{{Path: "/a"}, {Path: "/b", Order: "up"}}}}, "CompositeIndexes[0][1].Order", "ascending or descending"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.spec.Properties()
			if !errors.Is(err, cosmoserr.ErrInvalidSpec) {
				t.Fatalf("Properties() = %v, want cosmoserr.ErrInvalidSpec", err)
			}
			var se *cosmoserr.ValidationError
			if !errors.As(err, &se) || !errors.Is(se.Kind, cosmoserr.ErrInvalidSpec) {
				t.Fatalf("error %T is not a *cosmoserr.ValidationError of Kind ErrInvalidSpec", err)
			}
			if want := "ContainerSpec." + tt.wantField; se.Field != want || !strings.Contains(se.Reason, tt.wantText) {
				t.Errorf("got Field %q Reason %q; want Field %q and %q in the reason", se.Field, se.Reason, want, tt.wantText)
			}
		})
	}
}

func TestContainerSpecPartitionKeyKinds(t *testing.T) {
	for n, kind := range map[int]azcosmos.PartitionKeyKind{1: azcosmos.PartitionKeyKindHash, 2: azcosmos.PartitionKeyKindMultiHash, 3: azcosmos.PartitionKeyKindMultiHash} {
		paths := []string{"/a", "/b", "/c"}[:n]
		p, err := ContainerSpec{ID: "c", PartitionKeyPaths: paths}.Properties()
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(p.PartitionKeyDefinition)
		if err != nil {
			t.Fatal(err)
		}
		want := `{"kind":"` + string(kind) + `","paths":["` + strings.Join(paths, `","`) + `"],"version":2}`
		if string(raw) != want {
			t.Errorf("%d paths: %s, want %s", n, raw, want)
		}
	}
}

// TestContainerSpecGoldenJSON pins the full body EnsureContainer sends for a spec using every feature.
func TestContainerSpecGoldenJSON(t *testing.T) {
	spec := ContainerSpec{
		ID:                "docs",
		PartitionKeyPaths: []string{"/tenantId", "/userId"},
		SortPaths:         []string{"/createdAt"},
		CompositeIndexes:  [][]azcosmos.CompositeIndex{{{Path: "/status"}, {Path: "/dueDate", Order: azcosmos.CompositeIndexDescending}}},
		ExcludedPaths:     []string{"/payload/*"},
		Vectors:           []VectorSpec{{Path: "/embedding", Dimensions: 1536}, {Path: "/small", Dimensions: 64, IndexType: azcosmos.VectorIndexTypeFlat, DistanceFunction: azcosmos.VectorDistanceFunctionEuclidean}},
		FullText:          &FullTextSpec{Paths: []string{"/body"}},
		DefaultTTL:        90 * 24 * time.Hour,
		UniqueKeys:        [][]string{{"/email"}},
	}
	p, err := spec.Properties()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var got any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	const want = `{
	"id": "docs",
	"partitionKey": {"kind": "MultiHash", "paths": ["/tenantId", "/userId"], "version": 2},
	"defaultTtl": 7776000,
	"indexingPolicy": {
		"automatic": true,
		"indexingMode": "Consistent",
		"includedPaths": [{"path": "/*"}],
		"excludedPaths": [{"path": "/\"_etag\"/?"}, {"path": "/payload/*"}, {"path": "/embedding/*"}, {"path": "/small/*"}],
		"compositeIndexes": [
			[{"path": "/type", "order": "ascending"}, {"path": "/createdAt", "order": "ascending"}],
			[{"path": "/type", "order": "ascending"}, {"path": "/createdAt", "order": "descending"}],
			[{"path": "/status", "order": "ascending"}, {"path": "/dueDate", "order": "descending"}]
		],
		"vectorIndexes": [{"path": "/embedding", "type": "quantizedFlat"}, {"path": "/small", "type": "flat"}],
		"fullTextIndexes": [{"path": "/body"}]
	},
	"uniqueKeyPolicy": {"uniqueKeys": [{"paths": ["/email"]}]},
	"vectorEmbeddingPolicy": {"vectorEmbeddings": [
		{"path": "/embedding", "dataType": "float32", "distanceFunction": "cosine", "dimensions": 1536},
		{"path": "/small", "dataType": "float32", "distanceFunction": "euclidean", "dimensions": 64}
	]},
	"fullTextPolicy": {"defaultLanguage": "en-US", "fullTextPaths": [{"path": "/body", "language": "en-US"}]},
	"conflictResolutionPolicy": {"mode": "LastWriterWins", "conflictResolutionPath": "/_ts"}
}`
	var wantV any
	if err := json.Unmarshal([]byte(want), &wantV); err != nil {
		t.Fatal(err)
	}
	gotJSON, _ := json.MarshalIndent(got, "", "  ")
	wantJSON, _ := json.MarshalIndent(wantV, "", "  ")
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("container body:\n%s\nwant:\n%s", gotJSON, wantJSON)
	}
}

func TestContainerSpecCustomIndexingPolicyGetsVectorExclusions(t *testing.T) {
	own := &azcosmos.IndexingPolicy{
		IndexingMode:  azcosmos.IndexingModeConsistent,
		Automatic:     true,
		IncludedPaths: []azcosmos.IncludedPath{{Path: "/name/?"}},
		ExcludedPaths: []azcosmos.ExcludedPath{{Path: "/*"}},
	}
	p, err := ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}, IndexingPolicy: own, Vectors: []VectorSpec{{Path: "/v", Dimensions: 3}}}.Properties()
	if err != nil {
		t.Fatal(err)
	}
	ip := p.IndexingPolicy
	if len(ip.ExcludedPaths) != 2 || ip.ExcludedPaths[1].Path != "/v/*" || len(ip.VectorIndexes) != 1 || len(ip.CompositeIndexes) != 0 {
		t.Errorf("policy = %+v", ip)
	}
	if len(own.ExcludedPaths) != 1 || len(own.VectorIndexes) != 0 {
		t.Error("the caller's IndexingPolicy was modified")
	}
}

func TestContainerSpecConflictResolution(t *testing.T) {
	custom := azcosmos.ConflictResolutionModeCustom
	for name, tc := range map[string]struct {
		spec ConflictResolutionSpec
		want azcosmos.ConflictResolutionPolicy
	}{
		"default":          {ConflictResolutionSpec{}, azcosmos.ConflictResolutionPolicy{Mode: azcosmos.ConflictResolutionModeLastWriteWins, ResolutionPath: "/_ts"}},
		"version":          {ConflictResolutionSpec{Path: "/version"}, azcosmos.ConflictResolutionPolicy{Mode: azcosmos.ConflictResolutionModeLastWriteWins, ResolutionPath: "/version"}},
		"custom feed":      {ConflictResolutionSpec{Mode: custom}, azcosmos.ConflictResolutionPolicy{Mode: custom}},
		"custom procedure": {ConflictResolutionSpec{Mode: custom, Procedure: "dbs/d/colls/c/sprocs/merge"}, azcosmos.ConflictResolutionPolicy{Mode: custom, ResolutionProcedure: "dbs/d/colls/c/sprocs/merge"}},
	} {
		p, err := ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}, ConflictResolution: tc.spec}.Properties()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if p.ConflictResolutionPolicy == nil || *p.ConflictResolutionPolicy != tc.want {
			t.Errorf("%s: policy %+v, want %+v", name, p.ConflictResolutionPolicy, tc.want)
		}
	}
}
