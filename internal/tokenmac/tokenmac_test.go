package tokenmac

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/internal/sdklayout"
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

// TestIdentityDegraded: when the container handle's layout cannot be read, the identity is the
// container id alone (still refusing other containers) and a warning says so.
func TestIdentityDegraded(t *testing.T) {
	client, err := azcosmos.NewClientFromConnectionString("AccountEndpoint=https://acct.example:8081/;AccountKey=a2V5;", nil)
	if err != nil {
		t.Fatal(err)
	}
	c1, _ := client.NewContainer("db", "rows")
	c2, _ := client.NewContainer("db", "rows-tenant2")
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	defer slog.SetDefault(prev)
	restore := sdklayout.ReplaceForTest(nil, func(*azcosmos.ContainerClient) any { return &struct{ db string }{"db"} })
	id, id2 := string(Identity(c1)), string(Identity(c2))
	restore()
	if id != "container\x00rows" || id2 == id {
		t.Fatalf("degraded identities %q, %q; want the container id alone, distinct", id, id2)
	}
	if n := strings.Count(buf.String(), "level=WARN"); n != 1 || !strings.Contains(buf.String(), "container_identity") {
		t.Fatalf("want one warning naming container_identity, got:\n%s", buf.String())
	}
}
