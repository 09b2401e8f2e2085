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

func fieldsOf(ds []cosmoserr.Difference) map[string]cosmoserr.Difference {
	out := map[string]cosmoserr.Difference{}
	for _, d := range ds {
		out[d.Field] = d
	}
	return out
}

// ensure runs EnsureContainer and fails the test on an error.
func ensure(t *testing.T, c *cosmoskit.Client, spec cosmoskit.ContainerSpec) cosmoskit.ContainerResult {
	t.Helper()
	res, err := c.EnsureContainer(context.Background(), "db", spec)
	if err != nil {
		t.Fatalf("EnsureContainer(%s, OnDrift %v): %v", spec.ID, spec.OnDrift, err)
	}
	if res.Container == nil {
		t.Fatalf("EnsureContainer(%s): no handle", spec.ID)
	}
	return res
}

// An existing container whose indexing policy differs is reported with the differing fields, as
// a value with a nil error and the handle (before, the handle came with a non-nil
// *cosmoserr.MismatchError, which broke `if err != nil`); refused with DriftRefuse; replaced on
// request, and then matches.
func TestEnsureContainerIndexingDrift(t *testing.T) {
	ctx := context.Background()
	_, c := newKit(t)
	spec := cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}}
	if res := ensure(t, c, spec); !res.Created || len(res.Drift)+len(res.Applied) != 0 {
		t.Fatalf("first call: %+v, want Created and no drift", res)
	}
	spec.ExcludedPaths = []string{"/payload/*"}
	spec.SortPaths = []string{"/createdAt"}
	res := ensure(t, c, spec)
	if res.Created || len(res.Applied) != 0 {
		t.Errorf("drifted container: Created %v, Applied %v", res.Created, res.Applied)
	}
	fs := fieldsOf(res.Drift)
	if d := fs["IndexingPolicy.ExcludedPaths"]; d.Want != "/payload/*" || d.Have != "none" {
		t.Errorf("ExcludedPaths difference %+v", d)
	}
	if d, ok := fs["IndexingPolicy.CompositeIndexes"]; !ok || !strings.Contains(d.Want, "/createdAt descending") || !strings.Contains(d.Have, "/_ts descending") {
		t.Errorf("CompositeIndexes difference %+v", d)
	}
	if len(res.Drift) != 2 {
		t.Errorf("drift %v", res.Drift)
	}

	refuse := spec
	refuse.OnDrift = cosmoskit.DriftRefuse
	got, err := c.EnsureContainer(ctx, "db", refuse)
	if me := mismatch(t, err); len(me.Differences) != 2 || me.Database != "db" || me.Container != "c" {
		t.Errorf("DriftRefuse: %v", me)
	}
	if got.Container != nil {
		t.Error("DriftRefuse returned a handle with its error")
	}

	ignore := spec
	ignore.OnDrift = cosmoskit.DriftIgnore
	if res := ensure(t, c, ignore); len(res.Drift)+len(res.Applied) != 0 {
		t.Errorf("DriftIgnore: %+v", res)
	}

	apply := spec
	apply.OnDrift = cosmoskit.DriftApply
	if res := ensure(t, c, apply); len(res.Applied) != 2 || len(res.Drift) != 0 {
		t.Fatalf("DriftApply: applied %v, drift %v", res.Applied, res.Drift)
	}
	resp, err := res.Container.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ip := resp.ContainerProperties.IndexingPolicy; !strings.Contains(pathsOf(ip.ExcludedPaths), "/payload/*") {
		t.Errorf("excluded paths after apply: %v", ip.ExcludedPaths)
	}
	refuse.OnDrift = cosmoskit.DriftRefuse
	if res := ensure(t, c, refuse); len(res.Drift) != 0 {
		t.Errorf("after apply: %v", res.Drift)
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
	cc := ensure(t, c, spec).Container
	if res := ensure(t, c, spec); len(res.Drift) != 0 {
		t.Fatalf("same throughput: %v", res.Drift)
	}
	spec.ManualThroughput = 800
	if d := fieldsOf(ensure(t, c, spec).Drift)["Throughput"]; d.Want != "manual 800 RU/s" || d.Have != "manual 400 RU/s" {
		t.Errorf("throughput difference %+v", d)
	}
	spec.OnDrift = cosmoskit.DriftApply
	if res := ensure(t, c, spec); len(res.Applied) != 1 || res.Applied[0].Field != "Throughput" {
		t.Fatalf("apply: %+v", res)
	}
	tr, err := cc.ReadThroughput(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := tr.ThroughputProperties.ManualThroughput(); !ok || n != 800 {
		t.Errorf("throughput after apply: %v %v", n, ok)
	}
	// A switch to autoscale needs the migrate API: reported (not applied) even with DriftApply.
	spec.ManualThroughput, spec.AutoscaleMaxThroughput = 0, 4000
	res := ensure(t, c, spec)
	if d := fieldsOf(res.Drift)["Throughput"]; d.Want != "autoscale max 4000 RU/s" || d.Have != "manual 800 RU/s" || len(res.Applied) != 0 {
		t.Errorf("mode switch: drift %+v, applied %v", d, res.Applied)
	}
}

// Settings that cannot change are a MismatchError with the fields, and no handle, whatever OnDrift.
func TestEnsureContainerImmutableMismatch(t *testing.T) {
	ctx := context.Background()
	_, c := newKit(t)
	ensure(t, c, cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/a"}, Vectors: []cosmoskit.VectorSpec{{Path: "/v", Dimensions: 8}}})
	res, err := c.EnsureContainer(ctx, "db", cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/b"}, OnDrift: cosmoskit.DriftApply,
		Vectors: []cosmoskit.VectorSpec{{Path: "/v", Dimensions: 16}}})
	fs := fieldsOf(mismatch(t, err).Differences)
	if res.Container != nil {
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
	spec.OnDrift = cosmoskit.DriftRefuse
	for i := range 2 {
		if res, err := c.EnsureContainer(ctx, "db", spec); err != nil || len(res.Drift) != 0 {
			t.Fatalf("call %d: %v %v", i, err, res.Drift)
		}
	}
	custom := cosmoskit.ContainerSpec{ID: "d", PartitionKeyPaths: []string{"/pk"}, IndexingPolicy: &azcosmos.IndexingPolicy{
		Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent, IncludedPaths: []azcosmos.IncludedPath{{Path: "/name/?"}},
		ExcludedPaths: []azcosmos.ExcludedPath{{Path: "/*"}}}, OnDrift: cosmoskit.DriftRefuse}
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
