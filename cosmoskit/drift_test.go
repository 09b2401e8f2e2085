package cosmoskit_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

func mismatch(t *testing.T, err error) *cosmoserr.MismatchError {
	t.Helper()
	var me *cosmoserr.MismatchError
	if !errors.As(err, &me) || !errors.Is(err, cosmoserr.ErrContainerMismatch) {
		t.Fatalf("err = %v, want a *cosmoserr.MismatchError", err)
	}
	return me
}

func fieldsOf(me *cosmoserr.MismatchError) map[string]cosmoserr.Difference {
	out := map[string]cosmoserr.Difference{}
	for _, d := range me.Differences {
		out[d.Field] = d
	}
	return out
}

// An existing container whose indexing policy differs is reported with the differing fields (and
// still returned), replaced on request, and then matches.
func TestEnsureContainerIndexingDrift(t *testing.T) {
	ctx := context.Background()
	_, c := newKit(t)
	spec := cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}}
	if _, err := c.EnsureContainer(ctx, "db", spec); err != nil {
		t.Fatal(err)
	}
	spec.ExcludedPaths = []string{"/payload/*"}
	spec.SortPaths = []string{"/createdAt"}
	cc, err := c.EnsureContainer(ctx, "db", spec)
	if cc == nil {
		t.Fatal("no handle for a container whose changeable settings drifted")
	}
	me := mismatch(t, err)
	fs := fieldsOf(me)
	if d := fs["IndexingPolicy.ExcludedPaths"]; d.Want != "/payload/*" || d.Have != "none" {
		t.Errorf("ExcludedPaths difference %+v", d)
	}
	if d, ok := fs["IndexingPolicy.CompositeIndexes"]; !ok || !strings.Contains(d.Want, "/createdAt descending") || !strings.Contains(d.Have, "/_ts descending") {
		t.Errorf("CompositeIndexes difference %+v", d)
	}
	if len(me.Differences) != 2 || me.Database != "db" || me.Container != "c" {
		t.Errorf("differences %v", me)
	}

	ignore := spec
	ignore.OnDrift = cosmoskit.DriftIgnore
	if _, err := c.EnsureContainer(ctx, "db", ignore); err != nil {
		t.Errorf("DriftIgnore: %v", err)
	}

	apply := spec
	apply.OnDrift = cosmoskit.DriftApply
	if _, err := c.EnsureContainer(ctx, "db", apply); err != nil {
		t.Fatalf("DriftApply: %v", err)
	}
	resp, err := cc.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ip := resp.ContainerProperties.IndexingPolicy; !strings.Contains(pathsOf(ip.ExcludedPaths), "/payload/*") {
		t.Errorf("excluded paths after apply: %v", ip.ExcludedPaths)
	}
	if _, err := c.EnsureContainer(ctx, "db", spec); err != nil {
		t.Errorf("after apply: %v", err)
	}
}

func pathsOf(ps []azcosmos.ExcludedPath) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Path)
	}
	return strings.Join(out, ",")
}

// The container's own throughput is compared when the spec declares one, and replaced on request.
func TestEnsureContainerThroughputDrift(t *testing.T) {
	ctx := context.Background()
	_, c := newKit(t)
	spec := cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}, ManualThroughput: 400}
	cc, err := c.EnsureContainer(ctx, "db", spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.EnsureContainer(ctx, "db", spec); err != nil {
		t.Fatalf("same throughput: %v", err)
	}
	spec.ManualThroughput = 800
	_, err = c.EnsureContainer(ctx, "db", spec)
	if d := fieldsOf(mismatch(t, err))["Throughput"]; d.Want != "manual 800 RU/s" || d.Have != "manual 400 RU/s" {
		t.Errorf("throughput difference %+v", d)
	}
	spec.OnDrift = cosmoskit.DriftApply
	if _, err := c.EnsureContainer(ctx, "db", spec); err != nil {
		t.Fatalf("apply: %v", err)
	}
	tr, err := cc.ReadThroughput(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := tr.ThroughputProperties.ManualThroughput(); !ok || n != 800 {
		t.Errorf("throughput after apply: %v %v", n, ok)
	}
	// A switch to autoscale needs the migrate API: reported even with DriftApply.
	spec.ManualThroughput, spec.AutoscaleMaxThroughput = 0, 4000
	_, err = c.EnsureContainer(ctx, "db", spec)
	if d := fieldsOf(mismatch(t, err))["Throughput"]; d.Want != "autoscale max 4000 RU/s" || d.Have != "manual 800 RU/s" {
		t.Errorf("mode switch difference %+v", d)
	}
}

// Settings that cannot change are a MismatchError with the fields, and no handle, whatever OnDrift.
func TestEnsureContainerImmutableMismatch(t *testing.T) {
	ctx := context.Background()
	_, c := newKit(t)
	if _, err := c.EnsureContainer(ctx, "db", cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/a"}, Vectors: []cosmoskit.VectorSpec{{Path: "/v", Dimensions: 8}}}); err != nil {
		t.Fatal(err)
	}
	cc, err := c.EnsureContainer(ctx, "db", cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/b"}, OnDrift: cosmoskit.DriftApply,
		Vectors: []cosmoskit.VectorSpec{{Path: "/v", Dimensions: 16}}})
	fs := fieldsOf(mismatch(t, err))
	if cc != nil {
		t.Error("a handle for a container with another partition key")
	}
	if d := fs["PartitionKeyPaths"]; d.Want != "/b" || d.Have != "/a" {
		t.Errorf("partition key difference %+v", d)
	}
	if d := fs["Vectors"]; !strings.Contains(d.Want, "16") || !strings.Contains(d.Have, "8") {
		t.Errorf("vector difference %+v", d)
	}
	if _, err := c.EnsureContainer(ctx, "db", cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/a"}, OnDrift: cosmoskit.DriftMode(7)}); !errors.Is(err, cosmoserr.ErrInvalidSpec) {
		t.Errorf("bad OnDrift: %v", err)
	}
}

// A spec with every changeable feature, sent again, does not drift (the comparison ignores what
// the service adds or normalises: /"_etag"/?, case, order).
func TestEnsureContainerNoFalseDrift(t *testing.T) {
	ctx := context.Background()
	_, c := newKit(t)
	spec := cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}, ExcludedPaths: []string{"/b/*", "/a/*"},
		CompositeIndexes: [][]azcosmos.CompositeIndex{{{Path: "/x"}, {Path: "/y", Order: azcosmos.CompositeIndexDescending}}},
		FullText:         &cosmoskit.FullTextSpec{Paths: []string{"/text"}}, Vectors: []cosmoskit.VectorSpec{{Path: "/v", Dimensions: 4}}}
	for i := range 2 {
		if _, err := c.EnsureContainer(ctx, "db", spec); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	custom := cosmoskit.ContainerSpec{ID: "d", PartitionKeyPaths: []string{"/pk"}, IndexingPolicy: &azcosmos.IndexingPolicy{
		Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent, IncludedPaths: []azcosmos.IncludedPath{{Path: "/name/?"}},
		ExcludedPaths: []azcosmos.ExcludedPath{{Path: "/*"}}}}
	for i := range 2 {
		if _, err := c.EnsureContainer(ctx, "db", custom); err != nil {
			t.Fatalf("custom policy, call %d: %v", i, err)
		}
	}
}

// Creating a container keyed on a path known to have few values logs a warning; others do not.
func TestEnsureContainerWarnsLowCardinalityKey(t *testing.T) {
	ctx := context.Background()
	s := cosmostest.NewServer(t)
	var logs lockedBuffer
	c, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key(), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.EnsureContainer(ctx, "db", cosmoskit.ContainerSpec{ID: "byTenant", PartitionKeyPaths: []string{"/tenantId"}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logs.String(), "few distinct values") {
		t.Errorf("warned for /tenantId: %s", logs.String())
	}
	for range 2 {
		if _, err := c.EnsureContainer(ctx, "db", cosmoskit.ContainerSpec{ID: "views", PartitionKeyPaths: []string{"/status"}}); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(logs.String(), "few distinct values"); n != 1 || !strings.Contains(logs.String(), "partition_key_path=/status") {
		t.Errorf("%d warnings for /status (want 1, at creation): %s", n, logs.String())
	}
}
