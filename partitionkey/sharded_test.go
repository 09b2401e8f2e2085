package partitionkey_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
)

type reading struct {
	ID     string `json:"id"`
	Device string `json:"device"`
}

func TestShardedThroughClient(t *testing.T) {
	_, c := newContainer(t, azcosmos.PartitionKeyDefinition{Paths: []string{"/device"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2})
	ctx := context.Background()
	s := partitionkey.Sharded{Count: 4}
	used := map[string]int{}
	for i := range 40 {
		id := fmt.Sprintf("r%02d", i)
		v, err := s.Value("sensor-7", id)
		if err != nil {
			t.Fatal(err)
		}
		used[v]++
		doc, _ := json.Marshal(reading{ID: id, Device: v})
		if _, err := c.CreateItem(ctx, azcosmos.NewPartitionKeyString(v), doc, nil); err != nil {
			t.Fatal(err)
		}
	}
	if len(used) != 4 {
		t.Fatalf("40 ids used %d of 4 shards: %v", len(used), used)
	}
	// A point read recomputes the shard from the id: no fan-out.
	pk, err := s.Key("sensor-7", "r13")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReadItem(ctx, pk.SDK(), "r13", nil); err != nil {
		t.Fatalf("point read on the computed shard: %v", err)
	}

	all, err := partitionkey.FanOut(ctx, s, "sensor-7", func(ctx context.Context, pk partitionkey.Key) ([]reading, error) {
		var out []reading
		pager := c.NewQueryItemsPager("SELECT * FROM c", pk.SDK(), nil)
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				return nil, err
			}
			for _, b := range page.Items {
				var r reading
				if err := json.Unmarshal(b, &r); err != nil {
					return nil, err
				}
				out = append(out, r)
			}
		}
		return out, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(all))
	for i, r := range all {
		ids[i] = r.ID
	}
	sort.Strings(ids)
	if len(ids) != 40 || ids[0] != "r00" || ids[39] != "r39" {
		t.Fatalf("fan-out read %d items: %v", len(ids), ids)
	}
	// Results come in suffix order.
	for i := 1; i < len(all); i++ {
		if all[i-1].Device > all[i].Device {
			t.Fatalf("fan-out results not in suffix order at %d: %s after %s", i, all[i].Device, all[i-1].Device)
		}
	}
}

func TestShardedStableHash(t *testing.T) {
	// FNV-1a 32: these values must never change, or ids written earlier are read from the wrong shard.
	s := partitionkey.Sharded{Count: 10}
	for id, want := range map[string]int{"": 2166136261 % 10, "a": 0xe40c292c % 10} {
		if got := s.Shard(id); got != want {
			t.Errorf("Shard(%q) = %d, want %d", id, got, want)
		}
	}
	if v, _ := (partitionkey.Sharded{Count: 1}).Value("k", "x"); v != "k-0" {
		t.Fatalf("one shard: %q", v)
	}
}

func TestShardedRefuses(t *testing.T) {
	for _, tc := range []struct {
		s    partitionkey.Sharded
		base string
	}{
		{partitionkey.Sharded{}, "k"},
		{partitionkey.Sharded{Count: 1001}, "k"},
		{partitionkey.Sharded{Count: 4}, ""},
		{partitionkey.Sharded{Count: 10, MaxBytes: 101}, string(make([]byte, 100))},
	} {
		if _, err := tc.s.Value(tc.base, "id"); !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) {
			t.Errorf("%+v base of %d bytes: %v", tc.s, len(tc.base), err)
		}
		if _, err := partitionkey.FanOut(context.Background(), tc.s, tc.base, func(context.Context, partitionkey.Key) ([]int, error) {
			t.Fatal("read called")
			return nil, nil
		}); err == nil {
			t.Errorf("FanOut %+v: no error", tc.s)
		}
	}
}

func TestFanOutFirstError(t *testing.T) {
	boom := errors.New("boom")
	failing := partitionkey.Of("k-1")
	_, err := partitionkey.FanOut(context.Background(), partitionkey.Sharded{Count: 3}, "k", func(ctx context.Context, pk partitionkey.Key) ([]int, error) {
		if pk.Equal(failing) {
			return nil, boom
		}
		<-ctx.Done() // the others wait for the cancellation the failure causes
		return nil, ctx.Err()
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the failing shard's error, not a cancellation", err)
	}
}
