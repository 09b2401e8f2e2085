package cosmostest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/google/go-cmp/cmp"
)

func TestPatch(t *testing.T) {
	_, cc := setup(t)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	base := `{"id":"a","pk":"p","n":5,"s":"x","arr":[1,2],"obj":{"k":1},"gone":true}`
	tests := []struct {
		name   string
		ops    func(*azcosmos.PatchOperations)
		cond   string
		status int
		want   map[string]any // subset of the result
		absent []string
	}{
		{"set", func(p *azcosmos.PatchOperations) { p.AppendSet("/s", "y") }, "", 200, map[string]any{"s": "y"}, nil},
		{"add new", func(p *azcosmos.PatchOperations) { p.AppendAdd("/new", 1) }, "", 200, map[string]any{"new": 1.0}, nil},
		{"add append", func(p *azcosmos.PatchOperations) { p.AppendAdd("/arr/-", 3) }, "", 200, map[string]any{"arr": []any{1.0, 2.0, 3.0}}, nil},
		{"add insert", func(p *azcosmos.PatchOperations) { p.AppendAdd("/arr/0", 0) }, "", 200, map[string]any{"arr": []any{0.0, 1.0, 2.0}}, nil},
		{"set index", func(p *azcosmos.PatchOperations) { p.AppendSet("/arr/1", 9) }, "", 200, map[string]any{"arr": []any{1.0, 9.0}}, nil},
		{"nested", func(p *azcosmos.PatchOperations) { p.AppendSet("/obj/k2", "v") }, "", 200, map[string]any{"obj": map[string]any{"k": 1.0, "k2": "v"}}, nil},
		{"replace", func(p *azcosmos.PatchOperations) { p.AppendReplace("/n", 6) }, "", 200, map[string]any{"n": 6.0}, nil},
		{"replace nil", func(p *azcosmos.PatchOperations) { p.AppendReplace("/n", nil) }, "", 200, map[string]any{"n": nil}, nil},
		{"replace missing", func(p *azcosmos.PatchOperations) { p.AppendReplace("/zz", 1) }, "", 400, nil, nil},
		{"remove", func(p *azcosmos.PatchOperations) { p.AppendRemove("/gone") }, "", 200, nil, []string{"gone"}},
		{"remove index", func(p *azcosmos.PatchOperations) { p.AppendRemove("/arr/0") }, "", 200, map[string]any{"arr": []any{2.0}}, nil},
		{"remove missing", func(p *azcosmos.PatchOperations) { p.AppendRemove("/zz") }, "", 400, nil, nil},
		{"incr", func(p *azcosmos.PatchOperations) { p.AppendIncrement("/n", 2) }, "", 200, map[string]any{"n": 7.0}, nil},
		{"incr absent", func(p *azcosmos.PatchOperations) { p.AppendIncrement("/m", -1) }, "", 200, map[string]any{"m": -1.0}, nil},
		{"incr string", func(p *azcosmos.PatchOperations) { p.AppendIncrement("/s", 1) }, "", 400, nil, nil},
		{"id forbidden", func(p *azcosmos.PatchOperations) { p.AppendSet("/id", "b") }, "", 400, nil, nil},
		{"pk forbidden", func(p *azcosmos.PatchOperations) { p.AppendSet("/pk", "q") }, "", 400, nil, nil},
		{"parent missing", func(p *azcosmos.PatchOperations) { p.AppendSet("/no/such", 1) }, "", 400, nil, nil},
		{"root", func(p *azcosmos.PatchOperations) { p.AppendSet("/", 1) }, "", 400, nil, nil},
		{"empty segment", func(p *azcosmos.PatchOperations) { p.AppendSet("/obj/", 1) }, "", 400, nil, nil},
		{"leading zero index", func(p *azcosmos.PatchOperations) { p.AppendSet("/arr/01", 9) }, "", 400, nil, nil},
		{"signed index", func(p *azcosmos.PatchOperations) { p.AppendRemove("/arr/+1") }, "", 400, nil, nil},
		{"replace at length", func(p *azcosmos.PatchOperations) { p.AppendReplace("/arr/2", 3) }, "", 400, nil, nil},
		{"replace dash", func(p *azcosmos.PatchOperations) { p.AppendReplace("/arr/-", 3) }, "", 400, nil, nil},
		{"set at length appends", func(p *azcosmos.PatchOperations) { p.AppendSet("/arr/2", 3) }, "", 200, map[string]any{"arr": []any{1.0, 2.0, 3.0}}, nil},
		{"add at length appends", func(p *azcosmos.PatchOperations) { p.AppendAdd("/arr/2", 3) }, "", 200, map[string]any{"arr": []any{1.0, 2.0, 3.0}}, nil},
		{"set past length", func(p *azcosmos.PatchOperations) { p.AppendSet("/arr/3", 3) }, "", 400, nil, nil},
		{"condition true", func(p *azcosmos.PatchOperations) { p.AppendSet("/s", "c") }, "from c where c.n = 5", 200, map[string]any{"s": "c"}, nil},
		{"condition false", func(p *azcosmos.PatchOperations) { p.AppendSet("/s", "c") }, "from c where c.n = 6", 412, nil, nil},
		{"eleven ops", func(p *azcosmos.PatchOperations) {
			for i := 0; i < 11; i++ {
				p.AppendSet("/s", i)
			}
		}, "", 400, nil, nil},
		{"ten ops", func(p *azcosmos.PatchOperations) {
			for i := 0; i < 10; i++ {
				p.AppendSet("/s", i)
			}
		}, "", 200, map[string]any{"s": 9.0}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := cc.UpsertItem(ctx, pk, []byte(base), nil); err != nil {
				t.Fatal(err)
			}
			var ops azcosmos.PatchOperations
			tt.ops(&ops)
			if tt.cond != "" {
				ops.SetCondition(tt.cond)
			}
			resp, err := cc.PatchItem(ctx, pk, "a", ops, &azcosmos.ItemOptions{EnableContentResponseOnWrite: true})
			if tt.status != 200 {
				if st, _ := status(t, err); st != tt.status {
					t.Fatalf("status %d, want %d: %v", st, tt.status, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(resp.Value, &got); err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.want {
				if diff := cmp.Diff(v, got[k]); diff != "" {
					t.Errorf("%s: %s", k, diff)
				}
			}
			for _, k := range tt.absent {
				if _, ok := got[k]; ok {
					t.Errorf("%s still present", k)
				}
			}
		})
	}
	_, err := cc.PatchItem(ctx, pk, "missing", patchSet("/s", 1), nil)
	if st, _ := status(t, err); st != http.StatusNotFound {
		t.Fatalf("patch missing: %v", err)
	}
}

// TestPatchSizeLimitLikeCreate: the 2 MB limit applies to a patched item as to a created one (the
// user's JSON, not the system properties the server adds): a maximum-size item can be patched
// without growing, and a patch that grows it past 2 MB is 413.
func TestPatchSizeLimitLikeCreate(t *testing.T) {
	_, cc := setup(t)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	const prefix, suffix = `{"id":"big","n":1,"pk":"p","s":"`, `"}`
	doc := prefix + strings.Repeat("x", 2*1024*1024-len(prefix)-len(suffix)) + suffix
	if _, err := cc.CreateItem(ctx, pk, []byte(doc), nil); err != nil {
		t.Fatalf("create a 2 MB item: %v", err)
	}
	if _, err := cc.PatchItem(ctx, pk, "big", patchSet("/n", 2), nil); err != nil {
		t.Fatalf("patch that keeps the size: %v", err)
	}
	_, err := cc.PatchItem(ctx, pk, "big", patchSet("/n", 12345), nil)
	if st, _ := status(t, err); st != http.StatusRequestEntityTooLarge {
		t.Fatalf("patch past 2 MB: %v (want 413)", err)
	}
	b := cc.NewTransactionalBatch(pk)
	b.PatchItem("big", patchSet("/n", 3), nil)
	if resp, err := cc.ExecuteTransactionalBatch(ctx, b, nil); err != nil || !resp.Success {
		t.Fatalf("batch patch that keeps the size: %v %v", err, batchStatuses(resp))
	}
}
