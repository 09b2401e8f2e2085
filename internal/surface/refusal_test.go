// Package surface_test checks cosmoskit's public surface as a whole: one refusal type for every
// input refused before a request is sent, and one home (cosmoserr) for every error value.
package surface_test

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/changefeed"
	"github.com/cosmoskit/cosmoskit-go/conflicts"
	"github.com/cosmoskit/cosmoskit-go/consistency"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/crosspartition"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/repository"
	"github.com/cosmoskit/cosmoskit-go/vector"
)

// item is the repository's document type.
type item struct {
	ID string `json:"id"`
	PK string `json:"pk"`
}

// container starts a cosmostest server with container "c" of database "db", keyed on /pk, with a
// 3-dimension float32 vector embedding at /embedding, and returns a plain azcosmos client for it.
func container(t *testing.T) (*cosmostest.Server, *azcosmos.ContainerClient) {
	t.Helper()
	s := cosmostest.NewServer(t)
	client, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		var re *azcore.ResponseError
		if !errors.As(err, &re) || re.StatusCode != http.StatusConflict {
			t.Fatal(err)
		}
	}
	db, _ := client.NewDatabase("db")
	props := azcosmos.ContainerProperties{ID: "c",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2},
		VectorEmbeddingPolicy: &azcosmos.VectorEmbeddingPolicy{VectorEmbeddings: []azcosmos.VectorEmbedding{
			{Path: "/embedding", DataType: azcosmos.VectorDataTypeFloat32, DistanceFunction: azcosmos.VectorDistanceFunctionCosine, Dimensions: 3},
		}},
		IndexingPolicy: &azcosmos.IndexingPolicy{
			Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
			IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}},
			ExcludedPaths: []azcosmos.ExcludedPath{{Path: "/embedding/*"}},
			VectorIndexes: []azcosmos.VectorIndex{{Path: "/embedding", Type: azcosmos.VectorIndexTypeFlat}},
		},
	}
	if _, err := db.CreateContainer(ctx, props, nil); err != nil {
		t.Fatal(err)
	}
	c, _ := db.NewContainer("c")
	return s, c
}

// refusal is one documented refusal: call returns the error, kind is its specific sentinel.
type refusal struct {
	name string
	call func() error
	kind error
}

// TestEveryRefusalIsAValidationError walks the exported constructors and the documented refusals
// of every package and checks that each is (or wraps) a *cosmoserr.ValidationError matching
// cosmoserr.ErrValidation and its specific Kind, and that nothing reached the server.
func TestEveryRefusalIsAValidationError(t *testing.T) {
	s, cc := container(t)
	ctx := context.Background()
	repo, err := repository.New(cc, repository.Options[item]{Type: "item",
		Key:               func(i item) (string, azcosmos.PartitionKey) { return i.ID, azcosmos.NewPartitionKeyString(i.PK) },
		PartitionKeyPaths: []string{"/pk"}})
	if err != nil {
		t.Fatal(err)
	}
	pk := partitionkey.Of("p")
	keyFn := func(i item) (string, azcosmos.PartitionKey) { return i.ID, azcosmos.NewPartitionKeyString(i.PK) }
	xp, err := crosspartition.New(cc, crosspartition.Options{})
	if err != nil {
		t.Fatal(err)
	}
	crossPage := func(o azcosmos.QueryOptions) error {
		_, err := xp.NewQueryItemsPager("SELECT * FROM c", &o).NextPage(ctx)
		return err
	}
	badToken := "not-a-token"
	def, err := partitionkey.DefinitionOf(azcosmos.PartitionKeyDefinition{Paths: []string{"/tenantId", "/userId"}, Kind: azcosmos.PartitionKeyKindMultiHash, Version: 2})
	if err != nil {
		t.Fatal(err)
	}
	searcher, err := vector.New(cc, vector.Options{})
	if err != nil {
		t.Fatal(err)
	}
	noop := func(context.Context, changefeed.Batch) error { return nil }
	second := func(_ string, err error) error { return err }

	refusals := []refusal{
		// repository: constructor, id, key, item, query, token, patch.
		{"repository.New without Type", func() error {
			_, err := repository.New(cc, repository.Options[item]{Key: keyFn})
			return err
		}, cosmoserr.ErrValidation},
		{"repository.New without Key", func() error {
			_, err := repository.New(cc, repository.Options[item]{Type: "item"})
			return err
		}, cosmoserr.ErrValidation},
		{"repository.NewMixed without repositories", func() error { _, err := repository.NewMixed(); return err }, cosmoserr.ErrValidation},
		{"repository bad id", func() error { _, err := repo.Get(ctx, pk, "a/b"); return err }, cosmoserr.ErrInvalidID},
		{"repository empty id", func() error { _, err := repo.Get(ctx, pk, ""); return err }, cosmoserr.ErrInvalidID},
		{"repository NaN key", func() error { _, err := repo.Get(ctx, partitionkey.Of(math.NaN()), "x"); return err }, cosmoserr.ErrInvalidPartitionKey},
		{"repository key with too many values", func() error { _, err := repo.Get(ctx, partitionkey.Of("a", "b"), "x"); return err }, cosmoserr.ErrInvalidPartitionKey},
		{"repository zero key", func() error { _, err := repo.Get(ctx, partitionkey.Key{}, "x"); return err }, cosmoserr.ErrInvalidPartitionKey},
		{"repository nil key", func() error { _, err := repo.Get(ctx, nil, "x"); return err }, cosmoserr.ErrInvalidPartitionKey},
		{"repository long key", func() error {
			_, err := repo.Get(ctx, partitionkey.Of(strings.Repeat("k", partitionkey.MaxValueBytes+1)), "x")
			return err
		}, cosmoserr.ErrInvalidPartitionKey},
		{"repository item with a bad id", func() error { _, err := repo.Create(ctx, item{ID: "a?b", PK: "p"}); return err }, cosmoserr.ErrInvalidID},
		{"repository item with a long key", func() error {
			_, err := repo.Create(ctx, item{ID: "x", PK: strings.Repeat("k", partitionkey.MaxValueBytes+1)})
			return err
		}, cosmoserr.ErrInvalidPartitionKey},
		{"repository query without scope", func() error { _, err := repo.Page(ctx, repository.NewQuery(), 10, ""); return err }, cosmoserr.ErrInvalidQuery},
		{"repository query with a literal", func() error {
			_, err := repo.Page(ctx, repository.SQL("SELECT * FROM c WHERE c.pk = 'p'").Partition(pk), 10, "")
			return err
		}, cosmoserr.ErrInvalidQuery},
		{"repository bad token", func() error { _, err := repo.Page(ctx, repository.NewQuery().Partition(pk), 10, badToken); return err }, cosmoserr.ErrInvalidToken},
		{"repository bad cross-partition token", func() error {
			_, err := repo.Page(ctx, repository.NewQuery().CrossPartition(), 10, badToken)
			return err
		}, cosmoserr.ErrInvalidToken},
		// crosspartition: token and page size.
		{"crosspartition bad token", func() error { return crossPage(azcosmos.QueryOptions{ContinuationToken: &badToken}) }, cosmoserr.ErrInvalidToken},
		{"crosspartition negative PageSizeHint", func() error { return crossPage(azcosmos.QueryOptions{PageSizeHint: -5}) }, cosmoserr.ErrValidation},
		// consistency: session token and level.
		{"consistency bad session token", func() error {
			_, err := consistency.WithSessionToken(ctx, "db", "c", "not a session token")
			return err
		}, cosmoserr.ErrInvalidSessionToken},
		{"consistency session token without container", func() error { _, err := consistency.WithSessionToken(ctx, "db", "", "0:1#1"); return err }, cosmoserr.ErrValidation},
		{"consistency bad level", func() error { _, err := consistency.WithLevel(ctx, "Sometimes"); return err }, cosmoserr.ErrInvalidLevel},
		// vector: the query vector and K.
		{"vector wrong dimensions", func() error { _, err := searcher.Search(ctx, vector.Query{Vector: []float32{1, 0}, K: 1}); return err }, cosmoserr.ErrInvalidVector},
		{"vector NaN", func() error {
			_, err := searcher.Search(ctx, vector.Query{Vector: []float32{float32(math.NaN()), 0, 0}, K: 1})
			return err
		}, cosmoserr.ErrInvalidVector},
		{"vector K 0", func() error { _, err := searcher.Search(ctx, vector.Query{Vector: []float32{1, 0, 0}}); return err }, cosmoserr.ErrValidation},
		{"vector bad key", func() error {
			_, err := searcher.Search(ctx, vector.Query{Vector: []float32{1, 0, 0}, K: 1, PartitionKey: partitionkey.Of(math.Inf(1))})
			return err
		}, cosmoserr.ErrInvalidPartitionKey},
		{"vector key longer than the container's", func() error {
			_, err := searcher.Search(ctx, vector.Query{Vector: []float32{1, 0, 0}, K: 1, PartitionKey: partitionkey.Of("a", "b")})
			return err
		}, cosmoserr.ErrInvalidPartitionKey},
		// changefeed and conflicts: constructor arguments.
		{"changefeed.New without name", func() error {
			_, err := changefeed.New(cc, changefeed.Options{Instance: "i", Leases: changefeed.Leases(cc), Handler: noop})
			return err
		}, cosmoserr.ErrValidation},
		{"changefeed.New without handler", func() error {
			_, err := changefeed.New(cc, changefeed.Options{Name: "n", Instance: "i", Leases: changefeed.Leases(cc)})
			return err
		}, cosmoserr.ErrValidation},
		{"changefeed.NewEstimator without container", func() error {
			_, err := changefeed.NewEstimator(nil, changefeed.EstimatorOptions{Name: "n", Leases: changefeed.Leases(cc)})
			return err
		}, cosmoserr.ErrValidation},
		{"conflicts.New without client", func() error { _, err := conflicts.New(nil, "db", "c", conflicts.Options{}); return err }, cosmoserr.ErrValidation},
		// cosmoskit: Config and ContainerSpec.
		{"cosmoskit.New without endpoint", func() error { _, err := cosmoskit.New(cosmoskit.Config{}); return err }, cosmoserr.ErrInvalidConfig},
		{"cosmoskit Config.Validate emulator key remote", func() error {
			return cosmoskit.Config{Endpoint: "https://a.documents.azure.com/", Key: cosmoskit.EmulatorKey}.Validate()
		}, cosmoserr.ErrInvalidConfig},
		{"cosmoskit Config.Validate empty region", func() error {
			return cosmoskit.Config{Endpoint: "https://a.documents.azure.com/", Key: "a2V5", PreferredRegions: []string{""}}.Validate()
		}, cosmoserr.ErrInvalidConfig},
		{"cosmoskit ContainerSpec without key paths", func() error {
			_, err := cosmoskit.ContainerSpec{ID: "c"}.Properties()
			return err
		}, cosmoserr.ErrInvalidSpec},
		{"cosmoskit ContainerSpec bad id", func() error {
			_, err := cosmoskit.ContainerSpec{ID: "a/b", PartitionKeyPaths: []string{"/pk"}}.Properties()
			return err
		}, cosmoserr.ErrInvalidSpec},
		{"cosmoskit ContainerSpec bad throughput", func() error {
			_, err := cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}, ManualThroughput: 150}.Properties()
			return err
		}, cosmoserr.ErrInvalidSpec},
		// partitionkey: the key and its builders.
		{"partitionkey.Of unsafe integer", func() error { return partitionkey.Of(int64(1) << 60).Err() }, cosmoserr.ErrInvalidPartitionKey},
		{"partitionkey.Of four values", func() error { return partitionkey.Of(1, 2, 3, 4).Err() }, cosmoserr.ErrInvalidPartitionKey},
		{"partitionkey.Of bad type", func() error { return partitionkey.Of([]string{"x"}).Err() }, cosmoserr.ErrInvalidPartitionKey},
		{"partitionkey.DefinitionOf without paths", func() error { _, err := partitionkey.DefinitionOf(azcosmos.PartitionKeyDefinition{}); return err }, cosmoserr.ErrInvalidPartitionKey},
		{"partitionkey Definition.Key too few values", func() error { _, err := def.Key("contoso"); return err }, cosmoserr.ErrInvalidPartitionKey},
		{"partitionkey Definition.Prefix empty", func() error { _, err := def.Prefix(); return err }, cosmoserr.ErrInvalidPartitionKey},
		{"partitionkey Synthetic with separator", func() error { _, err := partitionkey.Synthetic{}.Key("a|b"); return err }, cosmoserr.ErrInvalidPartitionKey},
		{"partitionkey Synthetic.KeyAt with separator", func() error { _, err := partitionkey.Synthetic{}.KeyAt(time.Now(), "a|b"); return err }, cosmoserr.ErrInvalidPartitionKey},
		{"partitionkey Sharded without count", func() error { return second(partitionkey.Sharded{}.Value("a", "1")) }, cosmoserr.ErrValidation},
	}
	docs := func() int {
		return s.Requests(cosmostest.RequestFilter{ResourceType: cosmostest.ResourceDocument})
	}
	before := docs()
	for _, r := range refusals {
		t.Run(r.name, func(t *testing.T) {
			err := r.call()
			if err == nil {
				t.Fatal("no error, want a refusal")
			}
			var ve *cosmoserr.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("%T %v is not a *cosmoserr.ValidationError", err, err)
			}
			if !errors.Is(err, cosmoserr.ErrValidation) {
				t.Errorf("%v does not match cosmoserr.ErrValidation", err)
			}
			if !errors.Is(err, r.kind) {
				t.Errorf("%v does not match %v", err, r.kind)
			}
			if ve.Field == "" || ve.Reason == "" {
				t.Errorf("refusal %+v does not name the field and the reason", ve)
			}
		})
	}
	if n := docs() - before; n != 0 {
		t.Errorf("%d document requests reached the server: a refusal sent something", n)
	}
}

// TestErrorValuesAreDeclaredInCosmoserr parses the module's non-test Go files and checks that
// every package-level error variable named Err* is declared in package cosmoserr only: one home
// for each error value. internal/ packages keep unexported details of their own and are skipped.
func TestErrorValuesAreDeclaredInCosmoserr(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	declared := map[string][]string{} // name -> where
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "internal" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || (rel != "." && fileExists(filepath.Join(path, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				for _, name := range spec.(*ast.ValueSpec).Names {
					if strings.HasPrefix(name.Name, "Err") && ast.IsExported(name.Name) {
						declared[name.Name] = append(declared[name.Name], filepath.ToSlash(rel))
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(declared) < 10 {
		t.Fatalf("found only %d Err* variables under %s: the walk is broken", len(declared), root)
	}
	// cosmostest is the exception: a test server for any client, it imports only internal/
	// packages (not the library's error model), so its errors about a test's own arguments
	// (ErrUnknownRegion) are its own.
	testServer := map[string]bool{"ErrUnknownRegion": true}
	for name, where := range declared {
		if testServer[name] && len(where) == 1 && strings.HasPrefix(where[0], "cosmostest/") {
			continue
		}
		if len(where) != 1 || !strings.HasPrefix(where[0], "cosmoserr/") {
			t.Errorf("%s is declared in %v, want once, in cosmoserr", name, where)
		}
	}
	for _, must := range []string{"ErrValidation", "ErrNotFound", "ErrInvalidToken", "ErrInvalidPartitionKey", "ErrInvalidConfig", "ErrInvalidSpec", "ErrLeaseLost"} {
		if _, ok := declared[must]; !ok {
			t.Errorf("%s is not declared in cosmoserr", must)
		}
	}
}

// moduleRoot returns the directory of the module's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for !fileExists(filepath.Join(dir, "go.mod")) {
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
	return dir
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
