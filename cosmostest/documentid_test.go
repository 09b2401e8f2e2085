package cosmostest_test

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// DOCUMENTID(c) is the document's number in the last eight bytes of its _rid, as on the service
// (the reference's example: _rid 36ZyAPW+uN8NAAAAAAAAAA== is document 13), and filters like any
// number.
func TestDocumentID(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, cc := setup(t)
	pk := azcosmos.NewPartitionKeyString("p")
	for _, id := range []string{"a", "b", "c"} {
		if _, err := cc.CreateItem(ctx, pk, []byte(`{"id":"`+id+`","pk":"p"}`), nil); err != nil {
			t.Fatal(err)
		}
	}
	page, err := cc.NewQueryItemsPager("SELECT c.id, c._rid, DOCUMENTID(c) AS n FROM c WHERE DOCUMENTID(c) >= 2", pk, nil).NextPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 2 {
		t.Fatalf("%d rows, want 2 (documents 2 and 3)", len(page.Items))
	}
	for _, it := range page.Items {
		var row struct {
			ID  string  `json:"id"`
			Rid string  `json:"_rid"`
			N   float64 `json:"n"`
		}
		if err := json.Unmarshal(it, &row); err != nil {
			t.Fatal(err)
		}
		b, err := base64.StdEncoding.DecodeString(row.Rid)
		if err != nil || len(b) != 16 || float64(binary.LittleEndian.Uint64(b[8:])) != row.N {
			t.Errorf("%s: DOCUMENTID %v, _rid %s", row.ID, row.N, row.Rid)
		}
	}
}
