package repository_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// PersonV3 is today's shape: v1 had "name", v2 split it into first/last, v3 renamed last to family
// and added a required country.
type PersonV3 struct {
	repository.Meta
	ID      string `json:"id"`
	Tenant  string `json:"tenant"`
	First   string `json:"first"`
	Family  string `json:"family"`
	Country string `json:"country"`
}

func personUpgrades() map[int]repository.UpgradeFunc {
	return map[int]repository.UpgradeFunc{
		1: func(d map[string]any) error {
			name, _ := d["name"].(string)
			first, last, _ := strings.Cut(name, " ")
			d["first"], d["last"] = first, last
			delete(d, "name")
			return nil
		},
		2: func(d map[string]any) error {
			d["family"] = d["last"]
			delete(d, "last")
			d["country"] = "unknown"
			return nil
		},
	}
}

func newPeople(t *testing.T, c *azcosmos.ContainerClient, edit ...func(*repository.Options[PersonV3])) *repository.Repository[PersonV3] {
	t.Helper()
	o := repository.Options[PersonV3]{
		Type:          "person",
		Key:           func(p PersonV3) (string, azcosmos.PartitionKey) { return p.ID, pk(p.Tenant).SDK() },
		SchemaVersion: 3,
		Upgrades:      personUpgrades(),
	}
	for _, e := range edit {
		e(&o)
	}
	r, err := repository.New(c, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSchemaUpgradeOnRead(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, "/tenant")
	people := newPeople(t, e.container)
	rawPut(t, e.container, "t1", `{"id":"p1","tenant":"t1","type":"person","schemaVersion":1,"name":"Ada Lovelace"}`)
	rawPut(t, e.container, "t1", `{"id":"p2","tenant":"t1","type":"person","schemaVersion":2,"first":"Alan","last":"Turing"}`)

	p1, err := people.Get(ctx, pk("t1"), "p1")
	if err != nil {
		t.Fatal(err)
	}
	if p1.First != "Ada" || p1.Family != "Lovelace" || p1.Country != "unknown" || p1.ETag == "" {
		t.Fatalf("v1 read as v3 = %+v", p1)
	}
	p2, err := people.Get(ctx, pk("t1"), "p2")
	if err != nil || p2.First != "Alan" || p2.Family != "Turing" {
		t.Fatalf("v2 read as v3 = %+v, %v", p2, err)
	}
	// without write-back the stored document is unchanged
	if raw := rawGet(t, e.container, "t1", "p1"); raw["schemaVersion"] != float64(1) {
		t.Fatalf("document was rewritten: %v", raw)
	}
	// writes are stamped with the current version
	if _, err := people.Upsert(ctx, p1); err != nil {
		t.Fatal(err)
	}
	if raw := rawGet(t, e.container, "t1", "p1"); raw["schemaVersion"] != float64(3) || raw["name"] != nil || raw["family"] != "Lovelace" {
		t.Fatalf("rewritten document = %v", raw)
	}
	// queries upgrade too
	var firsts []string
	for p, err := range people.All(ctx, repository.NewQuery().OrderBy("id", repository.Asc).Partition(pk("t1"))) {
		if err != nil {
			t.Fatal(err)
		}
		firsts = append(firsts, p.First+"/"+p.Country)
	}
	if fmt.Sprint(firsts) != "[Ada/unknown Alan/unknown]" {
		t.Fatalf("query results = %v", firsts)
	}
}

func TestSchemaVersionErrors(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, "/tenant")
	people := newPeople(t, e.container)
	rawPut(t, e.container, "t1", `{"id":"new","tenant":"t1","type":"person","schemaVersion":4,"first":"X"}`)
	rawPut(t, e.container, "t1", `{"id":"none","tenant":"t1","type":"person","first":"X"}`)
	rawPut(t, e.container, "t1", `{"id":"str","tenant":"t1","type":"person","schemaVersion":"3"}`)
	for _, id := range []string{"new", "none", "str"} {
		_, err := people.Get(ctx, pk("t1"), id)
		var de *repository.DocumentError
		if !errors.Is(err, cosmoserr.ErrUnknownSchemaVersion) || !errors.As(err, &de) || de.ID != id {
			t.Errorf("Get(%s) = %v, want ErrUnknownSchemaVersion", id, err)
		}
	}
	// a gap in the upgrade chain
	gap := newPeople(t, e.container, func(o *repository.Options[PersonV3]) { delete(o.Upgrades, 2) })
	rawPut(t, e.container, "t1", `{"id":"old","tenant":"t1","type":"person","schemaVersion":1,"name":"A B"}`)
	if _, err := gap.Get(ctx, pk("t1"), "old"); !errors.Is(err, cosmoserr.ErrUnknownSchemaVersion) {
		t.Errorf("Get with a missing upgrade = %v", err)
	}
	// unversioned documents with UnversionedAs
	legacy := newPeople(t, e.container, func(o *repository.Options[PersonV3]) { o.UnversionedAs = 1 })
	rawPut(t, e.container, "t1", `{"id":"legacy","tenant":"t1","type":"person","name":"Grace Hopper"}`)
	if p, err := legacy.Get(ctx, pk("t1"), "legacy"); err != nil || p.Family != "Hopper" {
		t.Errorf("unversioned Get = %+v, %v", p, err)
	}
	// writing an item that claims another version is refused
	type Claimed struct {
		ID      string `json:"id"`
		Tenant  string `json:"tenant"`
		Version int    `json:"schemaVersion"`
	}
	claimed, _ := repository.New(e.container, repository.Options[Claimed]{Type: "person", SchemaVersion: 3,
		Key: func(c Claimed) (string, azcosmos.PartitionKey) { return c.ID, pk(c.Tenant).SDK() }})
	if _, err := claimed.Create(ctx, Claimed{ID: "c", Tenant: "t1", Version: 2}); !errors.Is(err, cosmoserr.ErrUnknownSchemaVersion) {
		t.Errorf("Create with schemaVersion 2 = %v", err)
	}
}

func TestSchemaWriteBackAndMigrate(t *testing.T) {
	ctx := context.Background()
	e := newEnvWith(t, []cosmostest.Option{cosmostest.WithPartitionCount(4)}, "/tenant")
	people := newPeople(t, e.container, func(o *repository.Options[PersonV3]) { o.WriteBackUpgrades = true })
	rawPut(t, e.container, "t1", `{"id":"wb","tenant":"t1","type":"person","schemaVersion":1,"name":"Ada Lovelace"}`)
	wb, err := people.Get(ctx, pk("t1"), "wb")
	if err != nil {
		t.Fatal(err)
	}
	if raw := rawGet(t, e.container, "t1", "wb"); raw["schemaVersion"] != float64(3) || raw["family"] != "Lovelace" || raw["_etag"] != string(wb.ETag) {
		t.Fatalf("not written back, or Get returned the old ETag %q: %v", wb.ETag, raw)
	}
	// the returned ETag is the written-back one, so a conditional write right after succeeds
	wb.Country = "UK"
	if _, err := people.Replace(ctx, wb, repository.IfMatch(wb.ETag)); err != nil {
		t.Fatal(err)
	}

	// Migrate walks every partition
	for i := range 30 {
		tenant := fmt.Sprintf("t%d", i%4)
		rawPut(t, e.container, tenant, fmt.Sprintf(`{"id":"m%d","tenant":%q,"type":"person","schemaVersion":%d,"name":"N %d","first":"N","last":"%d"}`, i, tenant, 1+i%3, i, i))
	}
	rawPut(t, e.container, "t1", `{"id":"other","tenant":"t1","type":"pet","schemaVersion":1}`)
	res, err := people.Migrate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Found != 20 || res.Upgraded != 20 {
		t.Fatalf("Migrate = %+v, want 20 upgraded (10 of 30 were current)", res)
	}
	for i := range 30 {
		raw := rawGet(t, e.container, fmt.Sprintf("t%d", i%4), fmt.Sprintf("m%d", i))
		if raw["schemaVersion"] != float64(3) {
			t.Fatalf("m%d not migrated: %v", i, raw)
		}
	}
	if raw := rawGet(t, e.container, "t1", "other"); raw["schemaVersion"] != float64(1) {
		t.Fatalf("another type was migrated: %v", raw)
	}
	// idempotent
	if res, err := people.Migrate(ctx); err != nil || res.Found != 0 {
		t.Fatalf("second Migrate = %+v, %v", res, err)
	}
}

// interleave runs fn before forwarding the first PUT (a replace) it sees.
type interleave struct {
	once sync.Once
	fn   func()
}

func (p *interleave) Do(req *policy.Request) (*http.Response, error) {
	if req.Raw().Method == http.MethodPut {
		p.once.Do(p.fn)
	}
	return req.Next()
}

func TestSchemaWriteBackLosesToConcurrentWriter(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, "/tenant")
	rawPut(t, e.container, "t1", `{"id":"p","tenant":"t1","type":"person","schemaVersion":1,"name":"Ada Lovelace"}`)
	shim := &interleave{fn: func() {
		// another writer stores a current document between our read and our write-back
		rawPut(t, e.container, "t1", `{"id":"p","tenant":"t1","type":"person","schemaVersion":3,"first":"Ada","family":"King","country":"UK"}`)
	}}
	opts := e.srv.ClientOptions()
	opts.PerRetryPolicies = append(opts.PerRetryPolicies, shim)
	cred, _ := azcosmos.NewKeyCredential(e.srv.Key())
	client, err := azcosmos.NewClientWithKey(e.srv.Endpoint(), cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	container, _ := client.NewContainer("db", "c")
	people := newPeople(t, container, func(o *repository.Options[PersonV3]) { o.WriteBackUpgrades = true })
	p, err := people.Get(ctx, pk("t1"), "p")
	if err != nil || p.Family != "Lovelace" {
		t.Fatalf("Get = %+v, %v", p, err)
	}
	if raw := rawGet(t, e.container, "t1", "p"); raw["family"] != "King" {
		t.Fatalf("the write-back overwrote a concurrent write: %v", raw)
	}
}
