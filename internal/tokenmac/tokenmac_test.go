package tokenmac

import (
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

func TestIdentity(t *testing.T) {
	client, err := azcosmos.NewClientFromConnectionString("AccountEndpoint=https://acct.example:8081/;AccountKey=a2V5;", nil)
	if err != nil {
		t.Fatal(err)
	}
	c1, _ := client.NewContainer("db", "rows")
	c2, _ := client.NewContainer("otherdb", "rows")
	c3, _ := client.NewContainer("db", "rows-tenant2")
	id := string(Identity(c1))
	if !strings.Contains(id, "acct.example") || !strings.Contains(id, "\x00db\x00") || !strings.HasSuffix(id, "\x00rows") {
		t.Fatalf("identity %q: azcosmos's layout changed", id)
	}
	if string(Identity(c2)) == id || string(Identity(c3)) == id {
		t.Fatal("identities collide")
	}
}

func TestTag(t *testing.T) {
	a := Tag(nil, []byte("ab"), []byte("c"))
	if a == Tag(nil, []byte("a"), []byte("bc")) || a == Tag([]byte(strings.Repeat("k", 32)), []byte("ab"), []byte("c")) {
		t.Fatal("tags collide")
	}
	if a != Tag(nil, []byte("ab"), []byte("c")) {
		t.Fatal("tag not deterministic")
	}
}
