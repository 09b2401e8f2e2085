package retry_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

// TestDoReadModifyWrite runs an ETag read-modify-write through the real SDK while another writer
// gets in between twice: Do starts the unit over on each 412 and the final count is exact.
func TestDoReadModifyWrite(t *testing.T) {
	e := newEnv(t, envRegions{}, retry.Options{})
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	type doc struct {
		ID string `json:"id"`
		PK string `json:"pk"`
		N  int    `json:"n"`
	}
	var interfere atomic.Int32
	interfere.Store(2)
	calls := 0
	err := retry.Do(ctx, retry.Backoff{Clock: newFakeClock()}, func(ctx context.Context) error {
		calls++
		resp, err := e.cc.ReadItem(ctx, pk, "a", nil)
		if err != nil {
			return cosmoserr.FromError(cosmoserr.OpReadItem, err)
		}
		var d doc
		if err := json.Unmarshal(resp.Value, &d); err != nil {
			return err
		}
		if interfere.Add(-1) >= 0 { // another writer bumps the item after our read
			if _, err := e.cc.UpsertItem(ctx, pk, []byte(`{"id":"a","pk":"p","n":100}`), nil); err != nil {
				return err
			}
		}
		d.N++
		body, _ := json.Marshal(d)
		_, err = e.cc.ReplaceItem(ctx, pk, "a", body, &azcosmos.ItemOptions{IfMatchEtag: &resp.ETag})
		return cosmoserr.FromError(cosmoserr.OpReplaceItem, err)
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 3 {
		t.Errorf("%d calls, want 3 (two 412s)", calls)
	}
	resp, err := e.cc.ReadItem(ctx, pk, "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	var d doc
	_ = json.Unmarshal(resp.Value, &d)
	if d.N != 101 {
		t.Errorf("n = %d, want 101", d.N)
	}

	// A unit that keeps losing gives up with the 412, still an *azcore.ResponseError underneath.
	err = retry.Do(ctx, retry.Backoff{MaxAttempts: 2, Clock: newFakeClock()}, func(ctx context.Context) error {
		stale := azcore.ETag(`"stale"`)
		_, err := e.cc.ReplaceItem(ctx, pk, "a", []byte(`{"id":"a","pk":"p"}`), &azcosmos.ItemOptions{IfMatchEtag: &stale})
		return cosmoserr.FromError(cosmoserr.OpReplaceItem, err)
	})
	var re *azcore.ResponseError
	if !errors.Is(err, cosmoserr.ErrPreconditionFailed) || !errors.As(err, &re) {
		t.Fatalf("Do = %v, want a 412", err)
	}
}
