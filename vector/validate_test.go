package vector_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/vector"
)

// TestBadQueriesSendNothing: wrong dimensions, NaN, Inf, K out of bounds, reserved or bad
// parameter names, string literals and a too long key are typed errors, and no query is sent.
func TestBadQueriesSendNothing(t *testing.T) {
	t.Parallel()
	srv, c := newServerContainer(t, 1, vectorProps(azcosmos.VectorDistanceFunctionCosine, 4, azcosmos.VectorIndexTypeFlat))
	s := newSearcher(t, c, vector.Options{})
	ok := []float32{1, 0, 0, 0}
	ctx := context.Background()
	if _, err := s.Index(ctx); err != nil { // the one properties read
		t.Fatal(err)
	}
	srv.ResetRequests()
	cases := []struct {
		name string
		q    vector.Query
		kind error
	}{
		{"dims", vector.Query{Vector: []float32{1, 0, 0}, K: 5}, cosmoserr.ErrInvalidVector},
		{"nan", vector.Query{Vector: []float32{1, float32(math.NaN()), 0, 0}, K: 5}, cosmoserr.ErrInvalidVector},
		{"inf", vector.Query{Vector: []float32{1, float32(math.Inf(1)), 0, 0}, K: 5}, cosmoserr.ErrInvalidVector},
		{"k0", vector.Query{Vector: ok}, cosmoserr.ErrValidation},
		{"kbig", vector.Query{Vector: ok, K: vector.DefaultMaxK + 1}, cosmoserr.ErrValidation},
		{"reserved", vector.Query{Vector: ok, K: 1, Where: "c.x = @k", Params: []azcosmos.QueryParameter{{Name: "@k", Value: 1}}}, cosmoserr.ErrValidation},
		{"badname", vector.Query{Vector: ok, K: 1, Where: "c.x = @x", Params: []azcosmos.QueryParameter{{Name: "x", Value: 1}}}, cosmoserr.ErrValidation},
		{"literal", vector.Query{Vector: ok, K: 1, Where: "c.x = 'a'"}, cosmoserr.ErrValidation},
		// A condition that escapes its parentheses would drop the type and partition key scope.
		{"escape", vector.Query{Vector: ok, K: 1, Where: "true) OR (true"}, cosmoserr.ErrValidation},
		{"unclosed", vector.Query{Vector: ok, K: 1, Where: "(c.x = 1"}, cosmoserr.ErrValidation},
		{"comment", vector.Query{Vector: ok, K: 1, Where: "c.x = 1 --"}, cosmoserr.ErrValidation},
		{"block comment", vector.Query{Vector: ok, K: 1, Where: "c.x = 1 /* x */"}, cosmoserr.ErrValidation},
		{"separator", vector.Query{Vector: ok, K: 1, Where: "c.x = 1;"}, cosmoserr.ErrValidation},
		{"key", vector.Query{Vector: ok, K: 1, PartitionKey: partitionkey.Of("a", "b")}, cosmoserr.ErrValidation},
		{"nan key", vector.Query{Vector: ok, K: 1, PartitionKey: partitionkey.Of(math.NaN())}, cosmoserr.ErrValidation},
		{"field", vector.Query{Vector: ok, K: 1, Fields: []string{"a.b"}}, cosmoserr.ErrValidation},
	}
	for _, tc := range cases {
		_, err := s.Search(ctx, tc.q)
		var ve *cosmoserr.ValidationError
		if !errors.Is(err, tc.kind) || !errors.Is(err, cosmoserr.ErrValidation) || !errors.As(err, &ve) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.kind)
		}
	}
	if n := srv.Requests(cosmostest.RequestFilter{}); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// TestNoPolicy: a container without an embedding policy is ErrNoPolicy.
func TestNoPolicy(t *testing.T) {
	t.Parallel()
	c := newContainer(t, 1, azcosmos.ContainerProperties{PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}})
	_, err := newSearcher(t, c, vector.Options{}).Search(context.Background(), vector.Query{Vector: []float32{1}, K: 1})
	if !errors.Is(err, cosmoserr.ErrNoPolicy) {
		t.Fatalf("%v", err)
	}
}

func TestNormalize(t *testing.T) {
	v, err := vector.Normalize([]float32{3, 4})
	if err != nil || v[0] != 0.6 || v[1] != 0.8 {
		t.Fatalf("%v %v", v, err)
	}
	if err := vector.CheckUnit(v); err != nil {
		t.Fatal(err)
	}
	if err := vector.CheckUnit([]float32{1, 0.01}); !errors.Is(err, cosmoserr.ErrNotUnit) {
		t.Fatal(err)
	}
	if _, err := vector.Normalize([]float32{0, 0}); !errors.Is(err, cosmoserr.ErrInvalidVector) {
		t.Fatal(err)
	}
	if _, err := vector.Normalize([]float32{float32(math.NaN())}); !errors.Is(err, cosmoserr.ErrInvalidVector) {
		t.Fatal(err)
	}
}

// TestHashEmbedder: deterministic (a golden value), unit length, words shared means closer.
func TestHashEmbedder(t *testing.T) {
	e := vector.HashEmbedder{Dims: 64}
	ctx := context.Background()
	v, err := e.Embed(ctx, "Hello, hello world")
	if err != nil {
		t.Fatal(err)
	}
	if err := vector.CheckUnit(v); err != nil {
		t.Fatal(err)
	}
	w, _ := e.Embed(ctx, "world hello HELLO")
	for i := range v {
		if v[i] != w[i] {
			t.Fatalf("order or case changed the vector: %v %v", v, w)
		}
	}
	if got := vector.Words("Hello, wörld-42!"); len(got) != 3 || got[1] != "wörld" {
		t.Fatalf("%q", got)
	}
	if _, err := e.Embed(ctx, "!!!"); !errors.Is(err, cosmoserr.ErrInvalidVector) {
		t.Fatal(err)
	}
	if _, err := (vector.HashEmbedder{}).Embed(ctx, "x"); !errors.Is(err, cosmoserr.ErrValidation) {
		t.Fatal(err)
	}
	// Golden: "hello" twice and "world" once, FNV-1a hashed into 64 buckets.
	for i, x := range v {
		want := float32(0)
		switch i {
		case 11:
			want = 0.8944272
		case 51:
			want = 0.4472136
		}
		if x != want {
			t.Fatalf("component %d = %v, want %v (the embedding changed: every stored vector would be stale)", i, x, want)
		}
	}
}

// TestServiceErrorsTyped: a service error is the library's typed *cosmoserr.Error (here a
// deleted container: ErrNotFound, status 404).
func TestServiceErrorsTyped(t *testing.T) {
	t.Parallel()
	c := newContainer(t, 1, vectorProps(azcosmos.VectorDistanceFunctionCosine, 2, azcosmos.VectorIndexTypeFlat))
	if _, err := c.Delete(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	_, err := newSearcher(t, c, vector.Options{}).Search(context.Background(), vector.Query{Vector: []float32{1, 0}, K: 1})
	var de *cosmoserr.Error
	if !errors.Is(err, cosmoserr.ErrNotFound) || !errors.As(err, &de) || de.StatusCode != 404 {
		t.Fatalf("%v", err)
	}
}
