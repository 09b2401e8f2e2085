package bulk_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/bulk"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

type thing struct {
	repository.Meta
	ID  string `json:"id"`
	PK  string `json:"pk"`
	N   int64  `json:"n"`
	Pad string `json:"pad,omitempty"`
	Tag string `json:"tag,omitempty"`
	key string // when set, the KeyFunc's key instead of PK
}

func thingRepo(t testing.TB, cc *azcosmos.ContainerClient) *repository.Repository[thing] {
	t.Helper()
	r, err := repository.New(cc, repository.Options[thing]{
		Type: "thing", SchemaVersion: 2, PartitionKeyPaths: []string{"/pk"},
		Key: func(x thing) (string, azcosmos.PartitionKey) {
			if x.key != "" {
				return x.ID, azcosmos.NewPartitionKeyString(x.key)
			}
			return x.ID, azcosmos.NewPartitionKeyString(x.PK)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func things(n int) []thing {
	out := make([]thing, n)
	for i := range out {
		out[i] = thing{ID: fmt.Sprint("t", i), PK: fmt.Sprint("k", i%37), N: int64(i)}
	}
	return out
}

// collectSeq runs ops and returns the results by input index.
func collectSeq(t testing.TB, x *bulk.Executor, ops iter.Seq[bulk.Operation], n int) []bulk.Result {
	t.Helper()
	out := make([]bulk.Result, n)
	seen := make([]bool, n)
	for r, err := range x.Execute(context.Background(), ops) {
		if r.Index < 0 || r.Index >= n {
			t.Fatalf("result index %d (err %v)", r.Index, err)
		}
		if seen[r.Index] {
			t.Fatalf("operation %d reported twice", r.Index)
		}
		seen[r.Index] = true
		out[r.Index] = r
	}
	for i, s := range seen {
		if !s {
			t.Fatalf("operation %d not reported", i)
		}
	}
	return out
}

// Typed items go through the repository's stamping and checks; a bad item gets its own
// ValidationError result and the others are applied.
func TestUpsertsFromRepository(t *testing.T) {
	e := newEnv(t, 0)
	repo := thingRepo(t, e.cc)
	x := e.executor(t, bulk.Options{})
	items := things(400)
	bad := map[int]struct {
		kind  error
		field string
	}{
		7:   {cosmoserr.ErrInvalidID, "id"},
		50:  {cosmoserr.ErrInvalidPartitionKey, "/pk"},
		123: {cosmoserr.ErrItemTooLarge, "item"},
		300: {cosmoserr.ErrUnsafeNumber, "/n"},
		399: {cosmoserr.ErrInvalidPartitionKey, "/pk"},
	}
	items[7].ID = "a/b"
	items[50].key = "elsewhere"                       // the KeyFunc's key is not the item's /pk
	items[123].Pad = strings.Repeat("x", 2*1024*1024) // over 2 MB once encoded
	items[300].N = 1 << 60
	items[399].PK = strings.Repeat("p", 2049)

	res := collectSeq(t, x, bulk.Upserts(context.Background(), repo, slices.Values(items)), len(items))
	for i, r := range res {
		want, isBad := bad[i]
		if !isBad {
			if r.Err != nil || r.StatusCode != 201 || r.ID != items[i].ID || r.Kind != bulk.Upsert {
				t.Errorf("item %d: %+v", i, r)
			}
			continue
		}
		var ve *cosmoserr.ValidationError
		if !errors.As(r.Err, &ve) || !errors.Is(r.Err, want.kind) || ve.Field != want.field || r.Attempts != 0 || r.StatusCode != 0 {
			t.Errorf("bad item %d: got %v (field %q, attempts %d), want %v naming %q", i, r.Err, fieldOf(r.Err), r.Attempts, want.kind, want.field)
		}
		if r.ID != items[i].ID {
			t.Errorf("bad item %d: Result.ID %q, want the KeyFunc's id", i, r.ID)
		}
	}
	ids := stored(t, e.s)
	if len(ids) != len(items)-len(bad) {
		t.Errorf("%d documents stored, want %d", len(ids), len(items)-len(bad))
	}
	// Stored as the repository writes: stamped, readable by Get.
	got, err := repo.Get(context.Background(), partitionkey.Of("k1"), "t1")
	if err != nil || got.N != 1 || got.ETag == "" {
		t.Fatalf("Get t1: %+v, %v", got, err)
	}
	raw, err := e.cc.ReadItem(context.Background(), azcosmos.NewPartitionKeyString("k1"), "t1", nil)
	if err != nil || !strings.Contains(string(raw.Value), `"type":"thing"`) || !strings.Contains(string(raw.Value), `"schemaVersion":2`) {
		t.Fatalf("stored t1 not stamped: %s, %v", raw.Value, err)
	}
}

func fieldOf(err error) string {
	var ve *cosmoserr.ValidationError
	if errors.As(err, &ve) {
		return ve.Field
	}
	return ""
}

// An item read with its ETag is upserted or replaced only if unchanged, as repo.Upsert does;
// Creates reports 409 for an existing id.
func TestRepositoryOpsConditions(t *testing.T) {
	e := newEnv(t, 0)
	repo := thingRepo(t, e.cc)
	x := e.executor(t, bulk.Options{})
	ctx := context.Background()
	for _, it := range things(4) {
		if _, err := repo.Create(ctx, it); err != nil {
			t.Fatal(err)
		}
	}
	var read []thing
	for _, it := range things(4) {
		v, err := repo.Get(ctx, partitionkey.Of(it.PK), it.ID)
		if err != nil {
			t.Fatal(err)
		}
		read = append(read, v)
	}
	// Another writer changes t1 and t3 after they were read.
	for _, i := range []int{1, 3} {
		if _, err := repo.Upsert(ctx, things(4)[i], repository.Unconditional()); err != nil {
			t.Fatal(err)
		}
	}
	for i := range read {
		read[i].Tag = "backfilled"
	}
	for name, seq := range map[string]iter.Seq[bulk.Operation]{
		"Upserts":  bulk.Upserts(ctx, repo, slices.Values(read)),
		"Replaces": bulk.Replaces(ctx, repo, slices.Values(read)),
	} {
		res := collectSeq(t, x, seq, len(read))
		for i, r := range res {
			stale := i == 1 || i == 3
			if stale != errors.Is(r.Err, cosmoserr.ErrPreconditionFailed) || !stale && r.Err != nil {
				t.Errorf("%s item %d (stale %v): %v", name, i, stale, r.Err)
			}
		}
		// Read again: the fresh ones now carry a new ETag; the stale ones keep theirs.
		for _, i := range []int{0, 2} {
			v, _ := repo.Get(ctx, partitionkey.Of(read[i].PK), read[i].ID)
			if v.Tag != "backfilled" {
				t.Errorf("%s item %d not written", name, i)
			}
			read[i] = v
		}
	}
	res := collectSeq(t, x, bulk.Creates(ctx, repo, slices.Values(things(5))), 5)
	for i, r := range res {
		if (i < 4) != errors.Is(r.Err, cosmoserr.ErrConflict) || i == 4 && (r.Err != nil || r.StatusCode != 201) {
			t.Errorf("Creates item %d: %d %v", i, r.StatusCode, r.Err)
		}
	}
}

// Operations of a repository on another container are refused, not written there.
func TestRepositoryOpsOtherContainer(t *testing.T) {
	e := newEnv(t, 0)
	db, _ := e.c.Cosmos().NewDatabase("db")
	props := azcosmos.ContainerProperties{ID: "other", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2}}
	if _, err := db.CreateContainer(context.Background(), props, nil); err != nil {
		t.Fatal(err)
	}
	other, _ := db.NewContainer("other")
	x := e.executor(t, bulk.Options{})
	res := collectSeq(t, x, bulk.Upserts(context.Background(), thingRepo(t, other), slices.Values(things(3))), 3)
	for i, r := range res {
		if !errors.Is(r.Err, cosmoserr.ErrValidation) || fieldOf(r.Err) != "Operation" {
			t.Errorf("item %d: %v", i, r.Err)
		}
	}
	if n := len(stored(t, e.s)); n != 0 {
		t.Errorf("%d documents written", n)
	}
	var nilRepo *repository.Repository[thing]
	res = collectSeq(t, x, bulk.Upserts(context.Background(), nilRepo, slices.Values(things(3))), 1)
	if fieldOf(res[0].Err) != "repository" {
		t.Errorf("nil repository: %v", res[0].Err)
	}
}
