package wire

import (
	"net/http"
	"testing"
)

func TestClassify(t *testing.T) {
	const base = "https://127.0.0.1:8081/"
	tests := []struct {
		name, method, path string
		headers            map[string]string
		want               Operation
	}{
		{"account", "GET", "", nil, Operation{Name: OpReadAccount}},
		{"create database", "POST", "dbs", nil, Operation{Name: OpCreateDatabase, Write: true}},
		{"query databases", "POST", "dbs", map[string]string{"Content-Type": "application/query+json"}, Operation{Name: OpQueryDatabases}},
		{"read database", "GET", "dbs/db1", nil, Operation{Name: OpReadDatabase, Database: "db1"}},
		{"delete database", "DELETE", "dbs/db1", nil, Operation{Name: OpDeleteDatabase, Database: "db1", Write: true}},
		{"create container", "POST", "dbs/db1/colls", nil, Operation{Name: OpCreateContainer, Database: "db1", Write: true}},
		{"query containers", "POST", "dbs/db1/colls", map[string]string{"x-ms-documentdb-query": "True"}, Operation{Name: OpQueryContainers, Database: "db1"}},
		{"read container", "GET", "dbs/db1/colls/c1", nil, Operation{Name: OpReadContainer, Database: "db1", Container: "c1"}},
		{"replace container", "PUT", "dbs/db1/colls/c1", nil, Operation{Name: OpReplaceContainer, Database: "db1", Container: "c1", Write: true}},
		{"delete container", "DELETE", "dbs/db1/colls/c1", nil, Operation{Name: OpDeleteContainer, Database: "db1", Container: "c1", Write: true}},
		{"pkranges", "GET", "dbs/db1/colls/c1/pkranges", nil, Operation{Name: OpReadPartitionKeyRanges, Database: "db1", Container: "c1"}},
		{"create item", "POST", "dbs/db1/colls/c1/docs", map[string]string{"Content-Type": "application/json"}, Operation{Name: OpCreateItem, Database: "db1", Container: "c1", Point: true, Write: true}},
		{"upsert item", "POST", "dbs/db1/colls/c1/docs", map[string]string{"x-ms-documentdb-is-upsert": "true"}, Operation{Name: OpUpsertItem, Database: "db1", Container: "c1", Point: true, Write: true}},
		{"query items", "POST", "dbs/db1/colls/c1/docs", map[string]string{"Content-Type": "application/query+json", "x-ms-documentdb-query": "True"}, Operation{Name: OpQueryItems, Database: "db1", Container: "c1"}},
		{"query plan", "POST", "dbs/db1/colls/c1/docs", map[string]string{"Content-Type": "application/query+json", "x-ms-cosmos-is-query-plan-request": "True"}, Operation{Name: OpQueryPlan, Database: "db1", Container: "c1"}},
		{"batch", "POST", "dbs/db1/colls/c1/docs", map[string]string{"x-ms-cosmos-is-batch-request": "True"}, Operation{Name: OpExecuteBatch, Database: "db1", Container: "c1", Write: true}},
		{"change feed", "GET", "dbs/db1/colls/c1/docs", map[string]string{"A-IM": "Incremental feed"}, Operation{Name: OpReadChangeFeed, Database: "db1", Container: "c1"}},
		{"read feed", "GET", "dbs/db1/colls/c1/docs", nil, Operation{Name: OpReadAllItems, Database: "db1", Container: "c1"}},
		{"read item", "GET", "dbs/db1/colls/c1/docs/a", nil, Operation{Name: OpReadItem, Database: "db1", Container: "c1", Point: true, Item: "a"}},
		{"replace item", "PUT", "dbs/db1/colls/c1/docs/a", nil, Operation{Name: OpReplaceItem, Database: "db1", Container: "c1", Point: true, Item: "a", Write: true}},
		{"patch item", "PATCH", "dbs/db1/colls/c1/docs/a", nil, Operation{Name: OpPatchItem, Database: "db1", Container: "c1", Point: true, Item: "a", Write: true}},
		{"delete item", "DELETE", "dbs/db1/colls/c1/docs/a", nil, Operation{Name: OpDeleteItem, Database: "db1", Container: "c1", Point: true, Item: "a", Write: true}},
		{"escaped ids", "GET", "dbs/my%20db/colls/c%2F1/docs/a%3Fb", nil, Operation{Name: OpReadItem, Database: "my db", Container: "c/1", Point: true, Item: "a?b"}},
		{"query offers", "POST", "offers", map[string]string{"Content-Type": "application/query+json"}, Operation{Name: OpQueryOffers}},
		{"read offer", "GET", "offers/HFln/", nil, Operation{Name: OpReadThroughput}},
		{"replace offer", "PUT", "offers/HFln/", nil, Operation{Name: OpReplaceThroughput, Write: true}},
		{"read conflicts", "GET", "dbs/db1/colls/c1/conflicts", nil, Operation{Name: OpReadConflicts, Database: "db1", Container: "c1"}},
		{"read conflict", "GET", "dbs/db1/colls/c1/conflicts/x", nil, Operation{Name: OpReadConflict, Database: "db1", Container: "c1"}},
		{"delete conflict", "DELETE", "dbs/db1/colls/c1/conflicts/x", nil, Operation{Name: OpDeleteConflict, Database: "db1", Container: "c1", Write: true}},
		{"stored procedure", "POST", "dbs/db1/colls/c1/sprocs/p1", nil, Operation{Name: OpOther, Database: "db1", Container: "c1", Write: true}},
		{"users", "GET", "dbs/db1/users", nil, Operation{Name: OpOther, Database: "db1"}},
		{"unknown root", "GET", "foo", nil, Operation{Name: OpOther}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := http.NewRequest(tt.method, base+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.headers {
				r.Header.Set(k, v)
			}
			if got := Classify(r); got != tt.want {
				t.Errorf("Classify(%s %s) = %+v, want %+v", tt.method, tt.path, got, tt.want)
			}
		})
	}
	if got := Classify(nil); got.Name != OpOther {
		t.Errorf("Classify(nil) = %+v", got)
	}
}

func TestClassifyAllocations(t *testing.T) {
	r, _ := http.NewRequest("POST", "https://127.0.0.1:8081/dbs/db1/colls/c1/docs", nil)
	r.Header.Set("x-ms-documentdb-is-upsert", "true")
	if n := testing.AllocsPerRun(100, func() { _ = Classify(r) }); n != 0 {
		t.Errorf("Classify allocates %v times, want 0", n)
	}
}
