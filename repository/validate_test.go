package repository_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// Doc is a free-form item for validation tests.
type Doc struct {
	ID    string  `json:"id"`
	PK    string  `json:"pk"`
	Big   int64   `json:"big,omitempty"`
	Safe  int64   `json:"safe,omitempty,string"`
	Float float64 `json:"float,omitempty"`
	Lines []Line  `json:"lines,omitempty"`
	Blob  string  `json:"blob,omitempty"`
	Tree  any     `json:"tree,omitempty"`
}

type Line struct {
	Amount int64 `json:"amount"`
}

func nest(levels int) any {
	var v any = map[string]any{}
	for range levels - 1 {
		v = map[string]any{"n": v}
	}
	return v
}

func TestValidationBeforeAnyRequest(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, "/pk")
	var large []repository.LargeItem
	docs, err := repository.New(e.container, repository.Options[Doc]{
		Type: "doc", PartitionKeyPaths: []string{"/pk"},
		Key:         func(d Doc) (string, azcosmos.PartitionKey) { return d.ID, pk(d.PK).SDK() },
		OnLargeItem: func(_ context.Context, li repository.LargeItem) { large = append(large, li) },
	})
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := repository.New(e.container, repository.Options[Doc]{Type: "doc", LegacyPartitionKey: true, PartitionKeyPaths: []string{"/pk"},
		Key: func(d Doc) (string, azcosmos.PartitionKey) { return d.ID, pk(d.PK).SDK() }})
	if err != nil {
		t.Fatal(err)
	}
	const maxSafe = int64(1) << 53
	cases := []struct {
		name  string
		repo  *repository.Repository[Doc]
		doc   Doc
		kind  error
		field string
	}{
		{"id 1024 bytes", docs, Doc{ID: strings.Repeat("a", 1024), PK: "p"}, cosmoserr.ErrInvalidID, "id"},
		{"id #", docs, Doc{ID: "a#b", PK: "p"}, cosmoserr.ErrInvalidID, "id"},
		{"id ?", docs, Doc{ID: "a?b", PK: "p"}, cosmoserr.ErrInvalidID, "id"},
		{"id /", docs, Doc{ID: "a/b", PK: "p"}, cosmoserr.ErrInvalidID, "id"},
		{"id \\", docs, Doc{ID: `a\b`, PK: "p"}, cosmoserr.ErrInvalidID, "id"},
		{"id empty", docs, Doc{ID: "", PK: "p"}, cosmoserr.ErrInvalidID, "id"},
		// ids the routing gateway cannot address by id once written (TestItemIdEncodingRoutingGW)
		{"id trailing space", docs, Doc{ID: "trailing ", PK: "p"}, cosmoserr.ErrInvalidID, "id"},
		{"id escaped slash", docs, Doc{ID: "a%2Fb", PK: "p"}, cosmoserr.ErrInvalidID, "id"},
		{"id escape only", docs, Doc{ID: "%2F", PK: "p"}, cosmoserr.ErrInvalidID, "id"},
		{"id escaped space", docs, Doc{ID: "a%20", PK: "p"}, cosmoserr.ErrInvalidID, "id"},
		{"id dot", docs, Doc{ID: ".", PK: "p"}, cosmoserr.ErrInvalidID, "id"},
		{"id dot dot", docs, Doc{ID: "..", PK: "p"}, cosmoserr.ErrInvalidID, "id"},
		{"id tab", docs, Doc{ID: "a\tb", PK: "p"}, cosmoserr.ErrInvalidID, "id"},
		{"id newline", docs, Doc{ID: "a\nb", PK: "p"}, cosmoserr.ErrInvalidID, "id"},
		{"id NUL", docs, Doc{ID: "a\x00b", PK: "p"}, cosmoserr.ErrInvalidID, "id"},
		{"id DEL", docs, Doc{ID: "a\x7fb", PK: "p"}, cosmoserr.ErrInvalidID, "id"},
		{"id not UTF-8", docs, Doc{ID: "a\xffb", PK: "p"}, cosmoserr.ErrInvalidID, "id"},
		{"too large", docs, Doc{ID: "big", PK: "p", Blob: strings.Repeat("x", repository.MaxItemBytes)}, cosmoserr.ErrItemTooLarge, "item"},
		{"nesting 129", docs, Doc{ID: "deep", PK: "p", Tree: nest(128)}, cosmoserr.ErrNestingTooDeep, "/tree" + strings.Repeat("/n", 127)},
		{"int 2^53+1", docs, Doc{ID: "i", PK: "p", Big: maxSafe + 1}, cosmoserr.ErrUnsafeNumber, "/big"},
		{"int -2^53-1", docs, Doc{ID: "i", PK: "p", Big: -maxSafe - 1}, cosmoserr.ErrUnsafeNumber, "/big"},
		{"int in array", docs, Doc{ID: "i", PK: "p", Lines: []Line{{1}, {maxSafe * 2}}}, cosmoserr.ErrUnsafeNumber, "/lines/1/amount"},
		{"19-digit decimal", docs, Doc{ID: "n", PK: "p", Tree: map[string]any{"price": json.Number("1234567890.123456789")}}, cosmoserr.ErrUnsafeNumber, "/tree/price"},
		{"decimal beyond 2^53", docs, Doc{ID: "n", PK: "p", Tree: []any{json.Number("9007199254740993.0")}}, cosmoserr.ErrUnsafeNumber, "/tree/0"},
		{"underflow", docs, Doc{ID: "n", PK: "p", Tree: map[string]any{"x": json.Number("1e-400")}}, cosmoserr.ErrUnsafeNumber, "/tree/x"},
		{"pk 2049 bytes", docs, Doc{ID: "k", PK: strings.Repeat("p", 2049)}, cosmoserr.ErrInvalidPartitionKey, "/pk"},
		{"legacy pk 102 bytes", legacy, Doc{ID: "k", PK: strings.Repeat("p", 102)}, cosmoserr.ErrInvalidPartitionKey, "/pk"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.srv.ResetRequests()
			for op, call := range map[string]func() error{
				"create": func() error { _, err := c.repo.Create(ctx, c.doc); return err },
				"upsert": func() error { _, err := c.repo.Upsert(ctx, c.doc); return err },
			} {
				err := call()
				var ve *cosmoserr.ValidationError
				if !errors.Is(err, c.kind) || !errors.Is(err, cosmoserr.ErrValidation) || !errors.As(err, &ve) {
					t.Fatalf("%s = %v, want %v", op, err, c.kind)
				}
				if strings.Contains(err.Error(), "1234567890") || strings.Contains(err.Error(), "9007199254740993") || strings.Contains(err.Error(), "1e-400") {
					t.Fatalf("%s: the error echoes the value: %v", op, err)
				}
				if ve.Field != c.field {
					t.Fatalf("%s: field %q, want %q (%v)", op, ve.Field, c.field, err)
				}
			}
			if n := e.srv.Requests(cosmostestDocs()); n != 0 {
				t.Fatalf("%d requests sent", n)
			}
		})
	}

	// the limits themselves pass
	for name, d := range map[string]Doc{
		"id 1023 bytes":  {ID: strings.Repeat("a", 1023), PK: "p"},
		"id separators":  {ID: "best:p1:w3_x-y", PK: "p"},
		"id punctuation": {ID: "a,=.:~+-@()^${}[]!_b", PK: "p"},
		"id inner space": {ID: " lead and inner", PK: "p"},
		"id percent":     {ID: "100%", PK: "p"},
		"nesting 128":    {ID: "deep", PK: "p", Tree: nest(127)},
		"int 2^53":       {ID: "i", PK: "p", Big: maxSafe, Lines: []Line{{-maxSafe}}},
		"string int":     {ID: "s", PK: "p", Safe: maxSafe + 1},
		"float":          {ID: "f", PK: "p", Float: 1e300},
		"pk 2048 bytes":  {ID: "k", PK: strings.Repeat("p", 2048)},
		"large item":     {ID: "l", PK: "p", Blob: strings.Repeat("x", repository.DefaultLargeItemThreshold)},
	} {
		if _, err := docs.Upsert(ctx, d); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if len(large) != 1 || large[0].ID != "l" || large[0].Size < repository.DefaultLargeItemThreshold {
		t.Fatalf("large item hook = %+v", large)
	}
	got, err := docs.Get(ctx, pk("p"), "s")
	if err != nil || got.Safe != maxSafe+1 {
		t.Fatalf("string-encoded integer round trip = %d, %v", got.Safe, err)
	}
	if _, err := legacy.Upsert(ctx, Doc{ID: "k101", PK: strings.Repeat("p", 101)}); err != nil {
		t.Fatalf("legacy pk 101 bytes: %v", err)
	}

	// keys and ids of point reads and deletes
	e.srv.ResetRequests()
	if _, err := docs.Get(ctx, pk("p"), "a#b"); !errors.Is(err, cosmoserr.ErrInvalidID) {
		t.Fatalf("Get(a#b) = %v", err)
	}
	for _, id := range []string{"trailing ", "a%2Fb", "..", "a\x00"} {
		if _, err := docs.Get(ctx, pk("p"), id); !errors.Is(err, cosmoserr.ErrInvalidID) || strings.Contains(err.Error(), id) {
			t.Fatalf("Get(unaddressable id) = %v", err)
		}
		if err := docs.Delete(ctx, pk("p"), id); !errors.Is(err, cosmoserr.ErrInvalidID) {
			t.Fatalf("Delete(unaddressable id) = %v", err)
		}
	}
	if err := docs.Delete(ctx, pk("p"), strings.Repeat("a", 1024)); !errors.Is(err, cosmoserr.ErrInvalidID) {
		t.Fatalf("Delete(long id) = %v", err)
	}
	if _, err := docs.Get(ctx, partitionkey.Of("p", "extra"), "x"); !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) {
		t.Fatalf("Get with 2 key components = %v", err)
	}
	if _, err := docs.Get(ctx, partitionkey.Key{}, "x"); !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) {
		t.Fatalf("Get with an empty key = %v", err)
	}
	if _, err := docs.Get(ctx, partitionkey.Of(strings.Repeat("p", 2049)), "x"); !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) {
		t.Fatalf("Get with a long key = %v", err)
	}
	if _, err := docs.Get(ctx, nil, "x"); !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) {
		t.Fatalf("Get with a nil key = %v", err)
	}
	if n := e.srv.Requests(cosmostestDocs()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}

	// the id in the document must be the KeyFunc's
	mismatch, _ := repository.New(e.container, repository.Options[Doc]{Type: "doc",
		Key: func(d Doc) (string, azcosmos.PartitionKey) { return "other", pk(d.PK).SDK() }})
	if _, err := mismatch.Create(ctx, Doc{ID: "x", PK: "p"}); !errors.Is(err, cosmoserr.ErrInvalidID) {
		t.Fatalf("KeyFunc id mismatch = %v", err)
	}
}
