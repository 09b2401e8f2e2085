package sdklayout

import (
	"reflect"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

func newClient(t *testing.T) *azcosmos.Client {
	t.Helper()
	c, err := azcosmos.NewClientFromConnectionString("AccountEndpoint=https://acct.example:8081/;AccountKey=a2V5;", nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestLinkedSDKLayout fails when the linked azcosmos changes a layout the library reads: adapt this
// package (and docs/versioning.md) before supporting that version.
func TestLinkedSDKLayout(t *testing.T) {
	cases := []struct {
		pk   azcosmos.PartitionKey
		want []any
	}{
		{azcosmos.NewPartitionKeyString("a"), []any{"a"}},
		{azcosmos.NewPartitionKeyNumber(2.5), []any{2.5}},
		{azcosmos.NewPartitionKeyBool(false), []any{false}},
		{azcosmos.NullPartitionKey, []any{nil}},
		{azcosmos.NewPartitionKeyString("t").AppendString("u").AppendNumber(-1), []any{"t", "u", -1.0}},
		{azcosmos.NewPartitionKey(), []any{}},
	}
	for _, c := range cases {
		got, ok := PartitionKeyValues(c.pk)
		if !ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("PartitionKeyValues(%v) = %#v, %v; want %#v, true", c.pk, got, ok, c.want)
		}
	}
	client := newClient(t)
	cc, err := client.NewContainer("db", "rows")
	if err != nil {
		t.Fatal(err)
	}
	if ep, db, ok := ContainerAccount(cc); !ok || ep != "https://acct.example:8081/" || db != "db" {
		t.Errorf("ContainerAccount = %q, %q, %v; want the endpoint and db", ep, db, ok)
	}
	if _, _, ok := ContainerAccount(nil); ok {
		t.Error("ContainerAccount(nil) ok")
	}
	if bad := Check(client); bad != nil {
		t.Errorf("Check = %v on the linked azcosmos, want nil", bad)
	}
	if v := SDKVersion(); v != SupportedSDK {
		t.Logf("linked azcosmos %s, layouts read as %s's", v, SupportedSDK)
	}
}

// Layouts an azcosmos upgrade could plausibly bring: each must read as not ok, never as a guess.
type (
	pkStrings   struct{ values []string }
	pkTwoFields struct {
		values []any
		kind   int
	}
	pkOneAny     struct{ values []any }
	accountV2    struct{ endpoint string }
	databaseV2   struct{ id string }
	databaseNoID struct {
		name   string
		client *accountV2
	}
	containerRenamed struct {
		id string
		db *databaseV2
	}
	containerDBValue struct{ database databaseV2 }
	containerNoEP    struct {
		database *struct {
			id     string
			client *struct{ host string }
		}
	}
)

// TestOtherLayoutsDegrade feeds the readers values of other layouts through the seams: each reads
// as not ok, Check names both layouts, and each layout says what degrades.
func TestOtherLayoutsDegrade(t *testing.T) {
	pks := []any{
		pkStrings{values: []string{"a"}},
		pkTwoFields{values: []any{"a"}, kind: 1},
		pkOneAny{values: []any{"a", 1}}, // an int component: another kind
		[]any{"a"},
		"a",
		nil,
	}
	for _, v := range pks {
		restore := ReplaceForTest(func(azcosmos.PartitionKey) any { return v }, nil)
		got, ok := PartitionKeyValues(azcosmos.NewPartitionKeyString("a"))
		restore()
		if ok {
			t.Errorf("PartitionKeyValues read %#v from a %T", got, v)
		}
	}
	containers := []any{
		&containerRenamed{id: "rows", db: &databaseV2{id: "db"}},
		&containerDBValue{database: databaseV2{id: "db"}},
		&struct{ database *databaseNoID }{database: &databaseNoID{name: "db", client: &accountV2{endpoint: "e"}}},
		&struct{ database *struct{ id string } }{database: &struct{ id string }{id: "db"}},
		&containerNoEP{database: &struct {
			id     string
			client *struct{ host string }
		}{id: "db", client: &struct{ host string }{host: "h"}}},
		containerRenamed{},
		(*containerRenamed)(nil),
		nil,
	}
	client := newClient(t)
	cc, err := client.NewContainer("db", "rows")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range containers {
		restore := ReplaceForTest(nil, func(*azcosmos.ContainerClient) any { return v })
		ep, db, ok := ContainerAccount(cc)
		restore()
		if ok {
			t.Errorf("ContainerAccount read %q, %q from a %T", ep, db, v)
		}
	}

	restore := ReplaceForTest(func(azcosmos.PartitionKey) any { return pkStrings{} }, func(*azcosmos.ContainerClient) any { return &containerRenamed{} })
	bad := Check(client)
	restore()
	if want := []Layout{PartitionKey, ContainerIdentity}; !reflect.DeepEqual(bad, want) {
		t.Errorf("Check = %v, want %v", bad, want)
	}
	for _, l := range bad {
		if l.Degraded() == "" {
			t.Errorf("layout %s does not say what degrades", l)
		}
	}
	if bad := Check(client); bad != nil {
		t.Errorf("Check after restore = %v, want nil", bad)
	}
}
