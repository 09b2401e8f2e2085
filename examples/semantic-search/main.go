// Command semantic-search shows vector search with cosmoskit: a container provisioned with a
// vector embedding policy (and a full-text policy), a small built-in corpus embedded with the
// deterministic vector.HashEmbedder, and searches scoped to one partition, across every
// partition (merged to the global top k), filtered, and hybrid (the vector ranking fused with the
// BM25 ranking of keywords by reciprocal rank fusion), each printed with its scores and the
// request units it cost.
//
// With COSMOS_ENDPOINT (or COSMOS_CONNECTION_STRING) unset it starts the in-process cosmostest
// server with four physical partitions, so it runs anywhere Go does, with no setup:
//
//	go run ./examples/semantic-search
//
// With COSMOS_ENDPOINT set it uses that account (which needs the vector search capability,
// EnableNoSQLVectorSearch, and for the full-text policy EnableNoSQLFullTextSearch),
// authenticating with COSMOS_KEY, COSMOS_CONNECTION_STRING or the default Azure credential.
// COSMOS_DATABASE names the database (default "semanticsearch").
//
// HashEmbedder only matches shared words; it stands in for a real model (vector.Embedder) so the
// example needs no download and prints the same results everywhere.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/repository"
	"github.com/cosmoskit/cosmoskit-go/vector"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, cosmoskit.ConfigFromEnv()); err != nil {
		fmt.Fprintln(os.Stderr, "semantic-search:", err)
		os.Exit(1)
	}
}

// dims is the embedding size of the example: large enough that different words rarely share a
// hash bucket (a real model has 1,536 for text-embedding-3-small).
const dims = 1024

// passage is one document of the corpus.
type passage struct {
	ID        string    `json:"id"`
	Topic     string    `json:"topic"` // the partition key
	Text      string    `json:"text"`
	Embedding []float32 `json:"embedding,omitempty"`
}

var corpus = []passage{
	{ID: "tent", Topic: "camping", Text: "A lightweight tent for two people keeps the rain out on mountain trips"},
	{ID: "stove", Topic: "camping", Text: "A camping stove boils water fast for coffee at the campsite"},
	{ID: "bag", Topic: "camping", Text: "A warm sleeping bag for cold mountain nights"},
	{ID: "boots", Topic: "hiking", Text: "Waterproof hiking boots for rocky mountain trails"},
	{ID: "poles", Topic: "hiking", Text: "Trekking poles take load off the knees on steep trails"},
	{ID: "map", Topic: "hiking", Text: "A paper map of the trails never runs out of battery"},
	{ID: "espresso", Topic: "kitchen", Text: "An espresso machine makes strong coffee at home"},
	{ID: "kettle", Topic: "kitchen", Text: "An electric kettle boils water for tea in a minute"},
	{ID: "pan", Topic: "kitchen", Text: "A cast iron pan keeps heat for searing steak"},
}

// run provisions, loads and searches, writing what it did to out.
func run(ctx context.Context, out io.Writer, cfg cosmoskit.Config) error {
	say := func(format string, args ...any) { _, _ = fmt.Fprintf(out, format, args...) }
	embedded := cfg.Endpoint == "" && cfg.ConnectionString == ""
	if embedded {
		srv, err := cosmostest.Start(cosmostest.WithPartitionCount(4))
		if err != nil {
			return fmt.Errorf("start cosmostest: %w", err)
		}
		defer srv.Close()
		cfg.Endpoint, cfg.Key = srv.Endpoint(), srv.Key()
		say("COSMOS_ENDPOINT is not set: started an in-process cosmostest server with 4 physical partitions\n")
	}
	if cfg.Database == "" {
		cfg.Database = "semanticsearch"
	}
	client, err := cosmoskit.New(cfg)
	if err != nil {
		return err
	}
	defer client.Close()

	if _, err := client.EnsureContainer(ctx, cfg.Database, cosmoskit.ContainerSpec{
		ID:                "passages",
		PartitionKeyPaths: []string{"/topic"},
		Vectors: []cosmoskit.VectorSpec{{Path: "/embedding", Dimensions: dims,
			DistanceFunction: azcosmos.VectorDistanceFunctionCosine, IndexType: azcosmos.VectorIndexTypeQuantizedFlat}},
		FullText: &cosmoskit.FullTextSpec{Paths: []string{"/text"}},
	}); err != nil {
		return err
	}
	say("container %q is ready: cosine embeddings of %d dimensions at /embedding, full-text on /text\n", "passages", dims)

	passages, err := repository.NewFromClient(client, cfg.Database, "passages", repository.Options[passage]{
		Type: "passage",
		Key:  func(p passage) (string, azcosmos.PartitionKey) { return p.ID, azcosmos.NewPartitionKeyString(p.Topic) },
	})
	if err != nil {
		return err
	}
	var embedder vector.Embedder = vector.HashEmbedder{Dims: dims} // a real model plugs in here
	for _, p := range corpus {
		if p.Embedding, err = embedder.Embed(ctx, p.Text); err != nil {
			return err
		}
		if _, err := passages.Upsert(ctx, p); err != nil {
			return err
		}
	}
	say("embedded and stored %d passages\n", len(corpus))

	search, err := vector.ForRepository(passages, vector.Options{}) // keep one per container: it caches the policy
	if err != nil {
		return err
	}
	show := func(title, text string, q vector.Query, filter *repository.Query) error {
		v, err := embedder.Embed(ctx, text)
		if err != nil {
			return err
		}
		q.Vector = v
		res, err := search.Search(ctx, q, filter)
		if err != nil {
			return err
		}
		scope := "one partition"
		if res.CrossPartition {
			scope = "every partition"
		}
		say("\n%s: %q (%s, %s index, %.2f RU)\n", title, text, scope, res.Method, res.RequestCharge)
		for _, h := range res.Hits {
			say("  %.4f  %-8s %-8s %s\n", h.Score, h.Item.Topic, h.Item.ID, h.Item.Text)
		}
		return nil
	}
	if err := show("single partition (topic camping)", "boils water for coffee", vector.Query{K: 2, PartitionKey: partitionkey.Of("camping")}, nil); err != nil {
		return err
	}
	if err := show("cross-partition", "boils water for coffee", vector.Query{K: 3}, nil); err != nil {
		return err
	}
	if err := show("filtered (topic is not kitchen)", "mountain trails", vector.Query{K: 3},
		repository.NewQuery().Where("topic", repository.Ne, "kitchen")); err != nil {
		return err
	}

	// Hybrid: the vector ranking fused (RRF) with the BM25 ranking of keywords on /text.
	const text = "coffee at the campsite"
	terms := []string{"boils", "water"}
	v, err := embedder.Embed(ctx, text)
	if err != nil {
		return err
	}
	res, err := search.Hybrid(ctx, vector.Query{Vector: v, K: 3}, vector.TextRank{Path: "/text", Terms: terms}, nil)
	if err != nil {
		return err
	}
	say("\nhybrid: %q with keywords %q (every partition, RRF of vector and BM25 ranks, %.2f RU)\n", text, terms, res.RequestCharge)
	for i, h := range res.Hits {
		say("  #%d %.4f  %-8s %-8s %s\n", i+1, h.Score, h.Item.Topic, h.Item.ID, h.Item.Text)
	}
	return nil
}
