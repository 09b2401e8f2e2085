package repository_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

func seedOrders(t *testing.T, orders *repository.Repository[Order], customer string, n int) {
	t.Helper()
	for i := range n {
		status := "open"
		if i%2 == 1 {
			status = "paid"
		}
		if _, err := orders.Create(context.Background(), Order{ID: fmt.Sprintf("%s-%04d", customer, i), CustomerID: customer, Status: status, Total: i}); err != nil {
			t.Fatal(err)
		}
	}
}

func collect[T any](t *testing.T, seq func(func(T, error) bool)) []T {
	t.Helper()
	var out []T
	for v, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func TestQueryBuilder(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container)
	seedOrders(t, orders, "c1", 10)
	seedOrders(t, orders, "c2", 4)
	rawPut(t, e.container, "c1", `{"id":"cust","customerId":"c1","type":"customer","schemaVersion":1,"status":"open","total":3}`)

	q := repository.NewQuery().Where("status", repository.Eq, "open").Where("total", repository.Ge, 4).
		OrderBy("total", repository.Desc).Partition(pk("c1"))
	got := collect(t, orders.All(ctx, q))
	var totals []int
	for _, o := range got {
		totals = append(totals, o.Total)
	}
	if fmt.Sprint(totals) != "[8 6 4]" {
		t.Fatalf("totals = %v", totals)
	}

	top := collect(t, orders.All(ctx, repository.NewQuery().OrderBy("total", repository.Asc).Top(2).Partition(pk("c1"))))
	if len(top) != 2 || top[0].Total != 0 || top[1].Total != 1 {
		t.Fatalf("Top(2) = %+v", top)
	}
	in := collect(t, orders.All(ctx, repository.NewQuery().Where("total", repository.In, []int{1, 3, 42}).Partition(pk("c1"))))
	if len(in) != 2 {
		t.Fatalf("In = %+v", in)
	}
	sw := collect(t, orders.All(ctx, repository.NewQuery().Where("id", repository.StartsWith, "c1-000").Partition(pk("c1"))))
	if len(sw) != 10 {
		t.Fatalf("StartsWith = %d items", len(sw))
	}

	n, err := orders.Count(ctx, repository.NewQuery().Where("status", repository.Eq, "open").Partition(pk("c1")))
	if err != nil || n != 5 {
		t.Fatalf("Count = %d, %v (the customer document must not count)", n, err)
	}

	// projection into a DTO
	type Summary struct {
		ID    string `json:"id"`
		Total int    `json:"total"`
	}
	sums := collect(t, repository.AllOf[Summary](ctx, orders, repository.NewQuery().Where("total", repository.Lt, 2).OrderBy("total", repository.Asc).Partition(pk("c1"))))
	if fmt.Sprint(sums) != "[{c1-0000 0} {c1-0001 1}]" {
		t.Fatalf("projection = %v", sums)
	}

	// template queries bind @type
	tq := repository.SQL("SELECT * FROM c WHERE c.type = @type AND c.total > @min", repository.Param("@min", 7)).Partition(pk("c1"))
	if got := collect(t, orders.All(ctx, tq)); len(got) != 2 {
		t.Fatalf("SQL = %+v", got)
	}
	// a template that reads another type's documents fails on decode
	bad := repository.SQL("SELECT * FROM c WHERE c.id = @id", repository.Param("@id", "cust")).Partition(pk("c1"))
	if _, err := orders.Page(ctx, bad, 10, ""); !errors.Is(err, cosmoserr.ErrTypeMismatch) {
		t.Fatalf("template returning another type: %v", err)
	}
}

func TestQueryInjectionPayloadsMatchNothing(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container)
	seedOrders(t, orders, "c1", 5)
	payloads := []string{
		`' OR '1'='1`,
		`" OR "1"="1`,
		`open' OR 1=1 --`,
		`open") OR true OR ("`,
		`x' UNION SELECT * FROM c --`,
		`\' OR 1=1`,
		"open\x00",
		`open' AND c.type = 'order`,
	}
	for _, p := range payloads {
		q := repository.NewQuery().Where("status", repository.Eq, p).Partition(pk("c1"))
		page, err := orders.Page(ctx, q, 100, "")
		if err != nil || len(page.Items) != 0 {
			t.Errorf("builder with %q: %d items, %v", p, len(page.Items), err)
		}
		tq := repository.SQL("SELECT * FROM c WHERE c.type = @type AND c.status = @s", repository.Param("@s", p)).Partition(pk("c1"))
		page, err = orders.Page(ctx, tq, 100, "")
		if err != nil || len(page.Items) != 0 {
			t.Errorf("template with %q: %d items, %v", p, len(page.Items), err)
		}
	}
	// field names and operators cannot carry SQL either
	e.srv.ResetRequests()
	for name, q := range map[string]*repository.Query{
		"field":    repository.NewQuery().Where("status = 'open' OR 1=1 --", repository.Eq, 1),
		"op":       repository.NewQuery().Where("status", repository.Op("= 'open' OR 1 ="), 1),
		"order":    repository.NewQuery().OrderBy("total; DROP", repository.Asc),
		"select":   repository.NewQuery().Select("id, c.secret"),
		"literal":  repository.SQL("SELECT * FROM c WHERE c.status = 'open'"),
		"dquote":   repository.SQL(`SELECT * FROM c WHERE c.status = "open"`),
		"offset":   repository.SQL("SELECT * FROM c OFFSET 100 LIMIT 10"),
		"param":    repository.SQL("SELECT * FROM c WHERE c.a = @a", repository.Param("a", 1)),
		"top zero": repository.NewQuery().Top(0),
		"zero":     new(repository.Query),
		"sql+top":  repository.SQL("SELECT * FROM c").Top(3),
	} {
		if _, err := orders.Page(ctx, q.Partition(pk("c1")), 10, ""); !errors.Is(err, cosmoserr.ErrInvalidQuery) {
			t.Errorf("%s: %v, want ErrInvalidQuery", name, err)
		}
	}
	if _, err := orders.Page(ctx, nil, 10, ""); !errors.Is(err, cosmoserr.ErrInvalidQuery) {
		t.Errorf("nil query: %v", err)
	}
	if _, err := orders.Count(ctx, repository.SQL("SELECT * FROM c").Partition(pk("c1"))); !errors.Is(err, cosmoserr.ErrInvalidQuery) {
		t.Errorf("Count of a template: %v", err)
	}
	if n := e.srv.Requests(cosmostestDocs()); n != 0 {
		t.Errorf("%d requests sent for invalid queries", n)
	}
	// bracket property access is not a literal
	if _, err := orders.Page(ctx, repository.SQL(`SELECT * FROM c WHERE c["status"] = @s`, repository.Param("@s", "open")).Partition(pk("c1")), 10, ""); err != nil {
		t.Errorf("bracket access: %v", err)
	}
}

func TestCrossPartitionNeedsOptIn(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	var logs bytes.Buffer
	var mu sync.Mutex
	orders := newOrders(t, e.container, func(o *repository.Options[Order]) {
		o.Logger = slog.New(slog.NewTextHandler(&lockedWriter{&logs, &mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	seedOrders(t, orders, "c1", 3)
	seedOrders(t, orders, "c2", 3)
	e.srv.ResetRequests()
	if _, err := orders.Page(ctx, repository.NewQuery(), 10, ""); !errors.Is(err, cosmoserr.ErrInvalidQuery) {
		t.Fatalf("query without a partition key: %v", err)
	}
	if n := e.srv.Requests(cosmostestDocs()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
	all := collect(t, orders.All(ctx, repository.NewQuery().CrossPartition()))
	if len(all) != 6 {
		t.Fatalf("cross-partition = %d items", len(all))
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logs.String(), "cross-partition query") || !strings.Contains(logs.String(), "type=order") {
		t.Fatalf("cross-partition query not logged: %s", logs.String())
	}
	if _, err := orders.Count(ctx, repository.NewQuery()); !errors.Is(err, cosmoserr.ErrInvalidQuery) {
		t.Fatalf("Count without partition key or CrossPartition: %v", err)
	}
}

type lockedWriter struct {
	b  *bytes.Buffer
	mu *sync.Mutex
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func TestPagingWhileWriting(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	orders := newOrders(t, e.container)
	const n = 1000
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < n; i += 4 {
				if _, err := orders.Create(ctx, Order{ID: fmt.Sprintf("o%04d", i), CustomerID: "c1", Total: i}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()

	// a writer keeps adding matching items whose ids fall between the existing ones (before and
	// after the pages already read) while we page
	stop := make(chan struct{})
	var writer sync.WaitGroup
	written := 0
	writer.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := orders.Create(ctx, Order{ID: fmt.Sprintf("o%04d-new", (i*37)%n), CustomerID: "c1", Total: i}); err != nil {
				if errors.Is(err, cosmoserr.ErrConflict) {
					continue
				}
				t.Error(err)
				return
			}
			written++
		}
	})
	seen := map[string]int{}
	q := repository.NewQuery().OrderBy("id", repository.Asc).Partition(pk("c1"))
	token, pages := "", 0
	for {
		p, err := orders.Page(ctx, q, 7, token)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(p.Items) > 7 || (len(p.Items) == 0 && p.Next != "") {
			t.Fatalf("page %d has %d items, next %q", pages, len(p.Items), p.Next)
		}
		for _, o := range p.Items {
			seen[o.ID]++
		}
		if p.Next == "" {
			break
		}
		if strings.ContainsAny(p.Next, "+/=") {
			t.Fatalf("token is not URL-safe: %q", p.Next)
		}
		token = p.Next
	}
	close(stop)
	writer.Wait()
	for i := range n {
		if id := fmt.Sprintf("o%04d", i); seen[id] != 1 {
			t.Fatalf("%s seen %d times, want once", id, seen[id])
		}
	}
	for id, c := range seen {
		if c != 1 {
			t.Fatalf("%s seen %d times", id, c)
		}
	}
	if written == 0 {
		t.Fatal("nothing was written while paging")
	}
	t.Logf("%d pages; %d items written meanwhile, %d of them seen", pages, written, len(seen)-n)

	// a token is bound to its query
	p, err := orders.Page(ctx, q, 7, "")
	if err != nil {
		t.Fatal(err)
	}
	other := repository.NewQuery().Partition(pk("c1"))
	if _, err := orders.Page(ctx, other, 7, p.Next); !errors.Is(err, cosmoserr.ErrInvalidToken) {
		t.Fatalf("token of another query: %v", err)
	}
	if _, err := orders.Page(ctx, q, 7, "not a token!"); !errors.Is(err, cosmoserr.ErrInvalidToken) {
		t.Fatalf("garbage token: %v", err)
	}
}

// emptyFirstPage answers the first page of every query with an empty page and a continuation,
// as the gateway may, and forwards the continuation request as the real first page.
type emptyFirstPage struct{ served atomic.Int32 }

func (p *emptyFirstPage) Do(req *policy.Request) (*http.Response, error) {
	r := req.Raw()
	if r.Method != http.MethodPost || r.Header.Get("x-ms-documentdb-isquery") != "True" && r.Header.Get("Content-Type") != "application/query+json" {
		return req.Next()
	}
	switch r.Header.Get("x-ms-continuation") {
	case "":
		p.served.Add(1)
		h := http.Header{}
		h.Set("x-ms-continuation", "synthetic-empty")
		h.Set("Content-Type", "application/json")
		return &http.Response{StatusCode: http.StatusOK, Header: h, Request: r,
			Body: io.NopCloser(strings.NewReader(`{"_rid":"x","Documents":[],"_count":0}`))}, nil
	case "synthetic-empty":
		r.Header.Del("x-ms-continuation")
	}
	return req.Next()
}

func TestPageReadsThroughEmptyPages(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	shim := &emptyFirstPage{}
	opts := e.srv.ClientOptions()
	opts.PerRetryPolicies = append(opts.PerRetryPolicies, shim)
	cred, _ := azcosmos.NewKeyCredential(e.srv.Key())
	client, err := azcosmos.NewClientWithKey(e.srv.Endpoint(), cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	container, _ := client.NewContainer("db", "c")
	seedOrders(t, newOrders(t, e.container), "c1", 3)
	orders := newOrders(t, container)
	p, err := orders.Page(ctx, repository.NewQuery().Partition(pk("c1")), 10, "")
	if err != nil || len(p.Items) != 3 || p.Next != "" {
		t.Fatalf("Page = %d items, next %q, %v; want all 3 behind the empty page", len(p.Items), p.Next, err)
	}
	if shim.served.Load() == 0 {
		t.Fatal("no empty page was served")
	}
}

func TestHierarchicalKeys(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, "/tenant", "/user", "/session")
	type Msg struct {
		ID, Tenant, User, Session, Text string
	}
	key := func(m Msg) (string, azcosmos.PartitionKey) {
		return m.ID, azcosmos.NewPartitionKeyString(m.Tenant).AppendString(m.User).AppendString(m.Session)
	}
	type msgJSON struct {
		ID      string `json:"id"`
		Tenant  string `json:"tenant"`
		User    string `json:"user"`
		Session string `json:"session"`
		Text    string `json:"text"`
	}
	msgs, err := repository.New(e.container, repository.Options[msgJSON]{Type: "msg", PartitionKeyPaths: []string{"/tenant", "/user", "/session"},
		Key: func(m msgJSON) (string, azcosmos.PartitionKey) { return key(Msg(m)) }})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		m := msgJSON{ID: fmt.Sprintf("m%d", i), Tenant: "t1", User: fmt.Sprintf("u%d", i%2), Session: fmt.Sprintf("s%d", i%3), Text: "hi"}
		if _, err := msgs.Create(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	full := azcosmos.NewPartitionKeyString("t1").AppendString("u0").AppendString("s0")
	if m, err := msgs.Get(ctx, full, "m0"); err != nil || m.Text != "hi" {
		t.Fatalf("Get = %+v, %v", m, err)
	}
	// a point read needs every level
	if _, err := msgs.Get(ctx, partitionkey.Of("t1"), "m0"); !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) {
		t.Fatalf("Get with a prefix key = %v", err)
	}
	// a prefix scopes a query
	prefix := azcosmos.NewPartitionKeyString("t1").AppendString("u1")
	got := collect(t, msgs.All(ctx, repository.NewQuery().Partition(prefix)))
	if len(got) != 3 {
		t.Fatalf("prefix query = %d items, want 3", len(got))
	}
	// the same with a typed prefix, and a typed key one level too long is refused
	if got := collect(t, msgs.All(ctx, repository.NewQuery().Partition(partitionkey.Of("t1", "u1")))); len(got) != 3 {
		t.Fatalf("typed prefix query = %d items, want 3", len(got))
	}
	if _, err := msgs.Page(ctx, repository.NewQuery().Partition(partitionkey.Of("t1", "u1", "s1", "x")), 10, ""); !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) {
		t.Fatalf("four-level key = %v", err)
	}
}
