package bulk

import (
	"encoding/json"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
)

// FuzzPrepare: any document is refused or encoded as an operation whose body is the document,
// whose key is the document's value at /pk, and whose JSON the service can read.
func FuzzPrepare(f *testing.F) {
	for _, s := range [][2]string{
		{`{"id":"a","pk":"p"}`, "p"}, {`{"id":"a","pk":"q"}`, "p"}, {`{"pk":"p"}`, "p"}, {`{"id":1,"pk":"p"}`, "p"},
		{`[]`, "p"}, {`{"id":"a/b","pk":"p"}`, "p"}, {`{"id":"a","pk":{"x":1}}`, "p"}, {`{"id":"a","pk":"p","pk":"q"}`, "q"},
		{`{"id":"\u0000","pk":"p"}`, "p"}, {`null`, ""}, {`{"id":"a","pk":"p"} x`, "p"},
	} {
		f.Add(s[0], s[1])
	}
	def, _ := partitionkey.DefinitionOf(azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2})
	c := &containerInfo{def: def, paths: def.Paths(), kind: string(def.Kind()), version: 2}
	f.Fuzz(func(t *testing.T, doc, key string) {
		p, err := c.prepare(Operation{Kind: Upsert, PartitionKey: partitionkey.Of(key), Document: []byte(doc)})
		if err != nil {
			return
		}
		var op wire.BatchOperation
		if err := json.Unmarshal(p.enc, &op); err != nil {
			t.Fatalf("%q: encoded operation is not JSON: %v", doc, err)
		}
		var got struct {
			ID string `json:"id"`
			PK any    `json:"pk"`
		}
		if err := json.Unmarshal(op.ResourceBody, &got); err != nil || got.ID == "" || got.ID != op.ID || got.PK != key {
			t.Fatalf("%q under %q: accepted as %+v (%v)", doc, key, got, err)
		}
		if wire.IDProblem(op.ID) != "" || op.OperationType != wire.BatchUpsert {
			t.Fatalf("%q: accepted id %q, type %q", doc, op.ID, op.OperationType)
		}
	})
}
