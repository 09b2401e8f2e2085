package cosmostest_test

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"net/http"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// wireRecorder keeps every byte the client reads from the server, so that header names can be
// checked as they were sent (Go's HTTP client canonicalises the names it parses).
type wireRecorder struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

type recordingConn struct {
	net.Conn
	rec *wireRecorder
}

func (c recordingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.rec.mu.Lock()
	c.rec.buf.Write(p[:n])
	c.rec.mu.Unlock()
	return n, err
}

// headerNames returns every response header name seen on the wire, with how often.
func (w *wireRecorder) headerNames(t *testing.T) map[string]int {
	t.Helper()
	w.mu.Lock()
	raw := w.buf.String()
	w.mu.Unlock()
	names := map[string]int{}
	for _, block := range strings.Split(raw, "HTTP/1.1 ")[1:] {
		tp := textproto.NewReader(bufio.NewReader(strings.NewReader(block)))
		if _, err := tp.ReadLine(); err != nil { // the status line
			continue
		}
		for {
			line, err := tp.ReadLine()
			if err != nil || line == "" {
				break
			}
			if name, _, ok := strings.Cut(line, ":"); ok {
				names[name]++
			}
		}
	}
	return names
}

// TestHeaderSpelling drives every kind of operation over HTTP/1.1 and checks that every response
// header name is spelled as the service spells it (lower case x-ms-*, etag, lsn): the table of
// internal/wire's names cosmostest sends.
func TestHeaderSpelling(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithHTTP(), cosmostest.WithPartitionCount(2))
	rec := &wireRecorder{}
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return recordingConn{c, rec}, nil
	}}
	t.Cleanup(tr.CloseIdleConnections)
	cl := newClient(t, s, func(o *azcosmos.ClientOptions) {
		o.Transport = &http.Client{Transport: tr}
		o.Retry.MaxRetries = -1
	})
	ctx := context.Background()
	tput := azcosmos.NewManualThroughputProperties(400)
	if _, err := cl.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := cl.NewDatabase("db")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, &azcosmos.CreateContainerOptions{ThroughputProperties: &tput}); err != nil {
		t.Fatal(err)
	}
	cc, _ := db.NewContainer("c")
	pk := azcosmos.NewPartitionKeyString("a")
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(db.Read(ctx, nil))
	must(cc.Read(ctx, nil))
	must(cc.CreateItem(ctx, pk, []byte(`{"id":"1","pk":"a"}`), nil))
	must(cc.UpsertItem(ctx, pk, []byte(`{"id":"2","pk":"a"}`), nil))
	must(cc.ReadItem(ctx, pk, "1", nil))
	must(cc.ReplaceItem(ctx, pk, "1", []byte(`{"id":"1","pk":"a","v":1}`), nil))
	patch := azcosmos.PatchOperations{}
	patch.AppendSet("/v", 2)
	must(cc.PatchItem(ctx, pk, "1", patch, nil))
	must(cc.DeleteItem(ctx, pk, "2", nil))
	_, err := cc.ReadItem(ctx, pk, "nope", nil) // 404
	if err == nil {
		t.Fatal("want 404")
	}
	_, err = cc.CreateItem(ctx, pk, []byte(`{"id":"1","pk":"a"}`), nil) // 409
	if err == nil {
		t.Fatal("want 409")
	}
	q := cc.NewQueryItemsPager("SELECT * FROM c", pk, &azcosmos.QueryOptions{PageSizeHint: 1})
	for q.More() {
		must(q.NextPage(ctx))
	}
	b := cc.NewTransactionalBatch(pk)
	b.UpsertItem([]byte(`{"id":"3","pk":"a"}`), nil)
	must(cc.ExecuteTransactionalBatch(ctx, b, nil))
	must(cc.ReadThroughput(ctx, nil))
	must(cc.ReplaceThroughput(ctx, azcosmos.NewManualThroughputProperties(500), nil))
	must(cc.ReadChangeFeed(ctx, &azcosmos.ChangeFeedOptions{FeedRange: fullRange()}))
	dbs := cl.NewQueryDatabasesPager("SELECT * FROM r", nil)
	must(dbs.NextPage(ctx))
	s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem, Status: http.StatusTooManyRequests, RetryAfter: time.Millisecond, Times: 1,
		Headers: http.Header{"X-Ms-Documentdb-Partitionkeyrangeid": {"0"}}})
	if _, err := cc.ReadItem(ctx, pk, "1", nil); err == nil {
		t.Fatal("want 429")
	}
	// A cross-partition query without the SDK's pipeline: 400/1004.
	q = cc.NewQueryItemsPager("SELECT VALUE COUNT(1) FROM c", azcosmos.NewPartitionKey(), nil)
	_, _ = q.NextPage(ctx)

	names := rec.headerNames(t)
	if len(names) < 10 {
		t.Fatalf("recorded only %v", names)
	}
	table := map[string]bool{}
	for _, h := range cosmostest.SentHeaders() {
		table[h] = true
	}
	for name := range names {
		if name == "Date" { // net/http's own
			continue
		}
		if !table[name] {
			t.Errorf("header %q is not spelled as the service spells it (not in the table)", name)
		}
	}
	for _, want := range []string{"x-ms-activity-id", "x-ms-request-charge", "x-ms-session-token", "etag", "x-ms-continuation",
		"x-ms-item-count", "x-ms-substatus", "x-ms-retry-after-ms", "lsn", "x-ms-alt-content-path", "x-ms-documentdb-partitionkeyrangeid"} {
		if names[want] == 0 {
			t.Errorf("no response carried %q (seen: %v)", want, names)
		}
	}
}
