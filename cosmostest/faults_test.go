package cosmostest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

var (
	docReads   = cosmostest.RequestFilter{Operation: cosmostest.OpReadItem}
	docCreates = cosmostest.RequestFilter{Operation: cosmostest.OpCreateItem}
)

// seed writes item id with partition key pk.
func seed(t *testing.T, cc *azcosmos.ContainerClient, pk, id string) {
	t.Helper()
	body := fmt.Sprintf(`{"id":%q,"pk":%q}`, id, pk)
	if _, err := cc.CreateItem(context.Background(), azcosmos.NewPartitionKeyString(pk), []byte(body), nil); err != nil {
		t.Fatal(err)
	}
}

func TestFault429RetryAfterThenSuccess(t *testing.T) {
	s, cc := setup(t)
	seed(t, cc, "p", "a")
	const n, wait = 3, 30 * time.Millisecond // azcore retries 429 three times by default
	h := s.InjectFault(cosmostest.Fault{
		Operation: cosmostest.OpReadItem,
		Status:    http.StatusTooManyRequests, RetryAfter: wait, Times: n,
	})
	s.ResetRequests()
	start := time.Now()
	if _, err := cc.ReadItem(context.Background(), azcosmos.NewPartitionKeyString("p"), "a", nil); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < n*wait {
		t.Errorf("read took %v; the SDK should have waited the retry-after %d times (%v)", d, n, n*wait)
	}
	if got := s.Requests(docReads); got != n+1 {
		t.Errorf("read attempts: %d, want %d", got, n+1)
	}
	if h.Hits() != n {
		t.Errorf("hits: %d, want %d", h.Hits(), n)
	}
}

func TestFault429StormBody(t *testing.T) {
	s := cosmostest.NewServer(t)
	c := newClient(t, s, func(o *azcosmos.ClientOptions) { o.Retry.MaxRetries = 1 })
	cc := newContainer(t, c, "c1", nil)
	seed(t, cc, "p", "a")
	s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem, Status: http.StatusTooManyRequests, RetryAfter: time.Millisecond})
	s.ResetRequests()
	_, err := cc.ReadItem(context.Background(), azcosmos.NewPartitionKeyString("p"), "a", nil)
	st, sub := status(t, err)
	if st != http.StatusTooManyRequests || sub != "3200" {
		t.Fatalf("got %d/%s, want 429/3200", st, sub)
	}
	var re *azcore.ResponseError
	errors.As(err, &re)
	if got := re.RawResponse.Header.Get("x-ms-retry-after-ms"); got != "1" {
		t.Errorf("x-ms-retry-after-ms %q", got)
	}
	for _, want := range []string{`"code": "TooManyRequests"`, "Request rate is large", "ActivityId: "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if got := s.Requests(docReads); got != 2 {
		t.Errorf("attempts with MaxRetries 1: %d", got)
	}
}

// TestFaultStatusesNotRetried: single-write accounts see these at once, in one attempt, with the
// service's status, sub-status and body code.
func TestFaultStatusesNotRetried(t *testing.T) {
	tests := []struct {
		name   string
		op     cosmostest.Operation
		status int
		sub    int
		code   string
	}{
		{"410/1002 on a point read", cosmostest.OpReadItem, http.StatusGone, 1002, "Gone"},
		{"449 on a read", cosmostest.OpReadItem, 449, 0, "RetryWith"},
		{"449 on a write", cosmostest.OpCreateItem, 449, 0, "RetryWith"},
		{"408 on a write", cosmostest.OpCreateItem, http.StatusRequestTimeout, 0, "RequestTimeout"},
		{"503 on a write", cosmostest.OpCreateItem, http.StatusServiceUnavailable, 0, "ServiceUnavailable"},
		{"500 on a write", cosmostest.OpCreateItem, http.StatusInternalServerError, 0, "InternalServerError"},
		{"503 on a read without preferred regions", cosmostest.OpReadItem, http.StatusServiceUnavailable, 0, "ServiceUnavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, cc := setup(t)
			seed(t, cc, "p", "a")
			h := s.InjectFault(cosmostest.Fault{
				Operation: tt.op, ResourceType: cosmostest.ResourceDocument, Container: "c1",
				Status: tt.status, SubStatus: tt.sub,
			})
			s.ResetRequests()
			var err error
			pk := azcosmos.NewPartitionKeyString("p")
			if tt.op == cosmostest.OpReadItem {
				_, err = cc.ReadItem(context.Background(), pk, "a", nil)
			} else {
				_, err = cc.CreateItem(context.Background(), pk, []byte(`{"id":"b","pk":"p"}`), nil)
			}
			st, sub := status(t, err)
			if st != tt.status || sub != fmt.Sprint(tt.sub) {
				t.Fatalf("got %d/%s, want %d/%d", st, sub, tt.status, tt.sub)
			}
			if !strings.Contains(err.Error(), `"code": "`+tt.code+`"`) {
				t.Errorf("body code is not %s:\n%v", tt.code, err)
			}
			if got := s.Requests(cosmostest.RequestFilter{Operation: tt.op, ResourceType: cosmostest.ResourceDocument}); got != 1 {
				t.Errorf("attempts: %d, want 1", got)
			}
			if h.Hits() != 1 {
				t.Errorf("hits %d", h.Hits())
			}
			h.Remove()
			if tt.op == cosmostest.OpCreateItem { // nothing was written
				_, err := cc.ReadItem(context.Background(), pk, "b", nil)
				if st, _ := status(t, err); st != http.StatusNotFound {
					t.Errorf("faulted create wrote the item: %v", err)
				}
			}
		})
	}
}

func TestFault503ReadFailsOverToNextRegion(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithRegions("West US", "East US"))
	c := newClient(t, s, func(o *azcosmos.ClientOptions) { o.PreferredRegions = []string{"East US", "West US"} })
	cc := newContainer(t, c, "c1", nil)
	seed(t, cc, "p", "a")
	h := s.InjectFault(cosmostest.Fault{Region: "eastus", Operation: cosmostest.OpReadItem, Status: http.StatusServiceUnavailable})
	s.ResetRequests()
	start := time.Now()
	if _, err := cc.ReadItem(context.Background(), azcosmos.NewPartitionKeyString("p"), "a", nil); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 900*time.Millisecond {
		t.Errorf("503 failover took %v; the SDK retries it without a backoff", d)
	}
	east := s.Requests(cosmostest.RequestFilter{Region: "East US", Operation: cosmostest.OpReadItem})
	west := s.Requests(cosmostest.RequestFilter{Region: "West US", Operation: cosmostest.OpReadItem})
	if east != 1 || west != 1 || h.Hits() != 1 {
		t.Errorf("East US %d, West US %d, hits %d; want 1, 1, 1", east, west, h.Hits())
	}
}

// TestFault408ReadRetriesNextRegion takes the SDK's 1 s backoff once.
func TestFault408ReadRetriesNextRegion(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithRegions("West US", "East US"))
	c := newClient(t, s, func(o *azcosmos.ClientOptions) { o.PreferredRegions = []string{"West US", "East US"} })
	cc := newContainer(t, c, "c1", nil)
	seed(t, cc, "p", "a")
	s.InjectFault(cosmostest.Fault{Region: "West US", Operation: cosmostest.OpReadItem, Status: http.StatusRequestTimeout})
	s.ResetRequests()
	if _, err := cc.ReadItem(context.Background(), azcosmos.NewPartitionKeyString("p"), "a", nil); err != nil {
		t.Fatal(err)
	}
	if got := s.Requests(cosmostest.RequestFilter{Region: "East US", Operation: cosmostest.OpReadItem}); got != 1 {
		t.Errorf("reads in East US: %d", got)
	}
	if got := s.Requests(docReads); got != 2 {
		t.Errorf("read attempts: %d, want 2", got)
	}
}

// TestFault403WriteForbidden takes the SDK's 1 s backoff once: a 403/3 makes it refresh the
// account and retry the write.
func TestFault403WriteForbidden(t *testing.T) {
	s, cc := setup(t)
	h := s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpCreateItem, Status: http.StatusForbidden, SubStatus: 3, Times: 1})
	s.ResetRequests()
	if _, err := cc.CreateItem(context.Background(), azcosmos.NewPartitionKeyString("p"), []byte(`{"id":"a","pk":"p"}`), nil); err != nil {
		t.Fatal(err)
	}
	if got := s.Requests(docCreates); got != 2 || h.Hits() != 1 {
		t.Errorf("attempts %d, hits %d; want 2, 1", got, h.Hits())
	}
	if got := s.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpReadAccount}); got == 0 {
		t.Error("the SDK did not refresh the account after 403/3")
	}
}

func TestFaultDelay(t *testing.T) {
	s, cc := setup(t)
	seed(t, cc, "p", "a")
	pk := azcosmos.NewPartitionKeyString("p")

	t.Run("then proceed", func(t *testing.T) {
		h := s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem, Delay: 30 * time.Millisecond, Times: 1})
		start := time.Now()
		if _, err := cc.ReadItem(context.Background(), pk, "a", nil); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d < 30*time.Millisecond || h.Hits() != 1 {
			t.Errorf("took %v, hits %d", d, h.Hits())
		}
	})
	t.Run("then answer", func(t *testing.T) {
		s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpCreateItem, Delay: 10 * time.Millisecond, Status: 449, Times: 1})
		_, err := cc.CreateItem(context.Background(), pk, []byte(`{"id":"b","pk":"p"}`), nil)
		if st, _ := status(t, err); st != 449 {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("context deadline", func(t *testing.T) {
		h := s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem, Delay: time.Minute, Times: 1})
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := cc.ReadItem(ctx, pk, "a", nil)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got %v, want context.DeadlineExceeded", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("the client waited %v", d)
		}
		// The server gave up the delayed request too: the next read is served at once.
		if _, err := cc.ReadItem(context.Background(), pk, "a", nil); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(5 * time.Second); h.Cancelled() != 1; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("Cancelled() = %d, want 1", h.Cancelled())
			}
		}
	})
}

func TestFaultDropConnection(t *testing.T) {
	for _, mode := range []struct {
		name string
		opts []cosmostest.Option
	}{{"https", nil}, {"http", []cosmostest.Option{cosmostest.WithHTTP()}}} {
		t.Run(mode.name, func(t *testing.T) {
			s, cc := setup(t, mode.opts...)
			h := s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpCreateItem, DropConnection: true, Times: 1})
			s.ResetRequests()
			pk := azcosmos.NewPartitionKeyString("p")
			_, err := cc.CreateItem(context.Background(), pk, []byte(`{"id":"a","pk":"p"}`), nil)
			var re *azcore.ResponseError
			if err == nil || errors.As(err, &re) {
				t.Fatalf("got %v, want a transport error", err)
			}
			if got := s.Requests(docCreates); got != 1 || h.Hits() != 1 {
				t.Errorf("attempts %d, hits %d; a write is not retried after an ambiguous error", got, h.Hits())
			}
			if _, err := cc.ReadItem(context.Background(), pk, "a", nil); err == nil {
				t.Error("the dropped create was applied")
			}
			if _, err := cc.CreateItem(context.Background(), pk, []byte(`{"id":"a","pk":"p"}`), nil); err != nil {
				t.Errorf("after the fault: %v", err)
			}
		})
	}
}

// TestFaultProbabilityDeterministic: the same seed fires on the same requests.
func TestFaultProbabilityDeterministic(t *testing.T) {
	run := func(seed uint64) string {
		s, cc := setup(t)
		h := s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpCreateItem, Status: 449, Probability: 0.5, Seed: seed})
		var b strings.Builder
		for i := range 40 {
			_, err := cc.CreateItem(context.Background(), azcosmos.NewPartitionKeyString("p"), fmt.Appendf(nil, `{"id":"%d","pk":"p"}`, i), nil)
			if err != nil {
				b.WriteByte('x')
			} else {
				b.WriteByte('.')
			}
		}
		if got := strings.Count(b.String(), "x"); got != h.Hits() {
			t.Errorf("failures %d, hits %d", got, h.Hits())
		}
		return b.String()
	}
	a, b, c := run(7), run(7), run(8)
	if a != b {
		t.Errorf("seed 7 fired differently:\n%s\n%s", a, b)
	}
	if a == c {
		t.Errorf("seeds 7 and 8 fired alike: %s", a)
	}
	if n := strings.Count(a, "x"); n < 10 || n > 30 {
		t.Errorf("probability 0.5 fired %d of 40: %s", n, a)
	}
}

func TestFaultMatchers(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithPartitionCount(2))
	c := newClient(t, s, nil)
	c1 := newContainer(t, c, "c1", nil)
	c2 := newContainer(t, c, "c2", nil)
	ctx := context.Background()
	for i := range 16 {
		seed(t, c1, fmt.Sprint("p", i), "a")
		seed(t, c2, fmt.Sprint("p", i), "a")
	}
	readAll := func(cc *azcosmos.ContainerClient) (failed int) {
		for i := range 16 {
			if _, err := cc.ReadItem(ctx, azcosmos.NewPartitionKeyString(fmt.Sprint("p", i)), "a", nil); err != nil {
				if st, _ := status(t, err); st != 449 {
					t.Fatalf("unexpected %v", err)
				}
				failed++
			}
		}
		return failed
	}

	t.Run("partition of a point read", func(t *testing.T) {
		h := s.InjectFault(cosmostest.Fault{Container: "c1", PartitionKeyRangeID: "1", Status: 449})
		defer h.Remove()
		failed := readAll(c1)
		if failed == 0 || failed == 16 || failed != h.Hits() {
			t.Errorf("%d of 16 reads failed, hits %d; want only range 1's", failed, h.Hits())
		}
		if f := readAll(c2); f != 0 {
			t.Errorf("other container: %d failed", f)
		}
	})
	t.Run("match func and remove", func(t *testing.T) {
		h := s.InjectFault(cosmostest.Fault{
			Status: 449,
			Match: func(r *http.Request) bool {
				return strings.Contains(r.Header.Get("x-ms-documentdb-partitionkey"), `"p3"`)
			},
		})
		if f := readAll(c1); f != 1 {
			t.Errorf("%d failed, want 1", f)
		}
		h.Remove()
		h.Remove()
		if f := readAll(c1); f != 0 {
			t.Errorf("after Remove: %d failed", f)
		}
		if h.Hits() != 1 {
			t.Errorf("hits %d", h.Hits())
		}
	})
	t.Run("first installed wins and ClearFaults", func(t *testing.T) {
		first := s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem, Status: 449, Times: 2})
		second := s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem, Status: 449})
		if f := readAll(c1); f != 16 || first.Hits() != 2 || second.Hits() != 14 {
			t.Errorf("failed %d, hits %d and %d", f, first.Hits(), second.Hits())
		}
		s.ClearFaults()
		if f := readAll(c1); f != 0 {
			t.Errorf("after ClearFaults: %d failed", f)
		}
	})
	t.Run("headers and message", func(t *testing.T) {
		h := s.InjectFault(cosmostest.Fault{
			Status: http.StatusServiceUnavailable, SubStatus: 21008, Message: "custom outage",
			Headers: http.Header{"X-Test": {"yes"}}, Times: 1,
		})
		defer h.Remove()
		_, err := c1.ReadItem(ctx, azcosmos.NewPartitionKeyString("p1"), "a", nil)
		st, sub := status(t, err)
		var re *azcore.ResponseError
		errors.As(err, &re)
		if st != 503 || sub != "21008" || re.RawResponse.Header.Get("X-Test") != "yes" || !strings.Contains(err.Error(), "custom outage") {
			t.Errorf("got %d/%s %v", st, sub, err)
		}
	})
}

// TestFaultConcurrent exercises fault bookkeeping from many goroutines (run with -race).
func TestFaultConcurrent(t *testing.T) {
	s, cc := setup(t)
	seed(t, cc, "p", "a")
	h := s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem, Status: 449, Times: 10})
	errs := make(chan error, 40)
	for range 40 {
		go func() {
			_, err := cc.ReadItem(context.Background(), azcosmos.NewPartitionKeyString("p"), "a", nil)
			errs <- err
		}()
	}
	failed := 0
	for range 40 {
		if <-errs != nil {
			failed++
		}
	}
	if failed != 10 || h.Hits() != 10 {
		t.Errorf("failed %d, hits %d; want 10", failed, h.Hits())
	}
}

// BenchmarkPointReadWithFaultsAndLimits is BenchmarkPointRead with ten installed faults that
// never match (each checked on every request, two of them resolving the request's partition)
// and throughput limits on an unthrottled 100,000 RU/s container: the cost of the hooks.
func BenchmarkPointReadWithFaultsAndLimits(b *testing.B) {
	s := cosmostest.NewServer(b, cosmostest.WithThroughputLimits(), cosmostest.WithPartitionCount(4))
	c, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		b.Fatal(err)
	}
	db, _ := c.NewDatabase("db")
	tp := azcosmos.NewManualThroughputProperties(100000)
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
		b.Fatal(err)
	}
	cc, _ := db.NewContainer("c")
	pk := azcosmos.NewPartitionKeyString("p")
	if _, err := cc.CreateItem(ctx, pk, []byte(`{"id":"a","pk":"p","payload":"0123456789abcdef"}`), nil); err != nil {
		b.Fatal(err)
	}
	for i := range 8 {
		s.InjectFault(cosmostest.Fault{Region: fmt.Sprint("nowhere", i), Status: 503})
	}
	for range 2 {
		s.InjectFault(cosmostest.Fault{Container: "c", PartitionKeyRangeID: "none", Status: 503})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := cc.ReadItem(ctx, pk, "a", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFaultDelayEndsOnClose: Close does not wait for, or leak, a request held by a Delay (goleak
// in TestMain checks the handler is gone).
func TestFaultDelayEndsOnClose(t *testing.T) {
	s, err := cosmostest.Start()
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, s, func(o *azcosmos.ClientOptions) { o.Retry.MaxRetries = -1 })
	cc := newContainer(t, c, "c1", nil)
	seed(t, cc, "p", "a")
	h := s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpCreateItem, Delay: time.Hour})
	done := make(chan error, 1)
	go func() {
		_, err := cc.CreateItem(context.Background(), azcosmos.NewPartitionKeyString("p"), []byte(`{"id":"b","pk":"p"}`), nil)
		done <- err
	}()
	for h.Hits() == 0 {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	s.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Error("the delayed create succeeded after Close")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the delayed request outlived Close")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
}
