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

// frozenClock is a server clock that stands still (250 ms into a second) unless Advance moves it.
func frozenClock() cosmostest.Option {
	t0 := time.Date(2026, 11, 30, 6, 0, 0, 250*int(time.Millisecond), time.UTC)
	return cosmostest.WithClock(func() time.Time { return t0 })
}

// noRetries makes the SDK return a 429 instead of retrying it.
func noRetries(o *azcosmos.ClientOptions) { o.Retry.MaxRetries = -1 }

// writeUntilThrottled creates small items (4.95 RU each: 1 KB, two indexed terms) with the given partition keys and
// returns how many were created before the first 429 (-1: none throttled) and that error.
func writeUntilThrottled(t *testing.T, cc *azcosmos.ContainerClient, pks func(i int) string, n int) (int, error) {
	t.Helper()
	for i := range n {
		pk := pks(i)
		_, err := cc.CreateItem(context.Background(), azcosmos.NewPartitionKeyString(pk), fmt.Appendf(nil, `{"id":"i%d","pk":%q}`, i, pk), nil)
		if err != nil {
			if st, _ := status(t, err); st != http.StatusTooManyRequests {
				t.Fatalf("write %d: %v", i, err)
			}
			return i, err
		}
	}
	return -1, nil
}

func samePK(int) string { return "hot" }

func TestThroughputBudgets(t *testing.T) {
	manual := azcosmos.NewManualThroughputProperties(400)
	auto := azcosmos.NewAutoscaleThroughputProperties(1000)
	tests := []struct {
		name      string
		limits    bool
		dbRU      *azcosmos.ThroughputProperties
		containRU *azcosmos.ThroughputProperties
		sharing   int // containers sharing the database offer
		admitted  int // writes of 4.95 RU admitted in one second; -1 unlimited
	}{
		{"off by default", false, nil, &manual, 1, -1},
		{"no offer is unlimited", true, nil, nil, 1, -1},
		{"manual 400", true, nil, &manual, 1, 81},        // 80 × 4.95 = 396 < 400
		{"autoscale max 1000", true, nil, &auto, 1, 203}, // 202 × 4.95 = 999.9 < 1000
		{"shared 400 over two containers", true, &manual, nil, 2, 41},
		{"container offer wins over the database's", true, &manual, &auto, 1, 203},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := []cosmostest.Option{frozenClock()}
			if tt.limits {
				opts = append(opts, cosmostest.WithThroughputLimits())
			}
			s := cosmostest.NewServer(t, opts...)
			c := newClient(t, s, noRetries)
			ctx := context.Background()
			if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, &azcosmos.CreateDatabaseOptions{ThroughputProperties: tt.dbRU}); err != nil {
				t.Fatal(err)
			}
			db, _ := c.NewDatabase("db")
			for i := range tt.sharing {
				props := azcosmos.ContainerProperties{ID: fmt.Sprint("c", i), PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}
				if _, err := db.CreateContainer(ctx, props, &azcosmos.CreateContainerOptions{ThroughputProperties: tt.containRU}); err != nil {
					t.Fatal(err)
				}
			}
			cc, _ := db.NewContainer("c0")
			limit := tt.admitted + 5
			if tt.admitted < 0 {
				limit = 200
			}
			got, _ := writeUntilThrottled(t, cc, samePK, limit)
			if got != tt.admitted {
				t.Errorf("writes admitted before the first 429: %d, want %d", got, tt.admitted)
			}
		})
	}
}

func TestThroughput429(t *testing.T) {
	s := cosmostest.NewServer(t, frozenClock(), cosmostest.WithThroughputLimits())
	c := newClient(t, s, noRetries)
	if _, err := c.CreateDatabase(context.Background(), azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := c.NewDatabase("db")
	tp := azcosmos.NewManualThroughputProperties(400)
	if _, err := db.CreateContainer(context.Background(), azcosmos.ContainerProperties{ID: "c2", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
		t.Fatal(err)
	}
	cc, _ := db.NewContainer("c2")
	n, err := writeUntilThrottled(t, cc, samePK, 100)
	if n != 81 {
		t.Fatalf("admitted %d", n)
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatal(err)
	}
	h := re.RawResponse.Header
	if h.Get("x-ms-substatus") != "3200" || h.Get("x-ms-retry-after-ms") != "750" || h.Get("x-ms-request-charge") != "0" {
		t.Errorf("headers: substatus %q retry-after %q charge %q", h.Get("x-ms-substatus"), h.Get("x-ms-retry-after-ms"), h.Get("x-ms-request-charge"))
	}
	for _, want := range []string{`"code": "TooManyRequests"`, `Message: {\"Errors\":[\"Request rate is large. More Request Units may be needed, so no changes were made. Please retry this request later. Learn more: http://aka.ms/cosmosdb-error-429\"]}`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %s:\n%v", want, err)
		}
	}
	if got := s.Throttled(cosmostest.RequestFilter{Container: "c2", Operation: cosmostest.OpCreateItem}); got != 1 {
		t.Errorf("Throttled: %d", got)
	}
	// Reads of the throttled partition are throttled too, and nothing was written.
	pk := azcosmos.NewPartitionKeyString("hot")
	if _, err := cc.ReadItem(context.Background(), pk, "i81", nil); err == nil {
		t.Fatal("read admitted in a spent second")
	} else if st, _ := status(t, err); st != http.StatusTooManyRequests {
		t.Fatal(err)
	}
	s.Advance(750 * time.Millisecond) // the next second: the budget is back
	if _, err := cc.ReadItem(context.Background(), pk, "i81", nil); err == nil {
		t.Fatal("the throttled write was applied")
	} else if st, _ := status(t, err); st != http.StatusNotFound {
		t.Fatal(err)
	}
	if _, err := cc.CreateItem(context.Background(), pk, []byte(`{"id":"i81","pk":"hot"}`), nil); err != nil {
		t.Fatal(err)
	}
}

// TestThroughputOverdraft: a request costing more than a second's budget is paid off over the
// following seconds, and retry-after says so.
func TestThroughputOverdraft(t *testing.T) {
	s := cosmostest.NewServer(t, frozenClock(), cosmostest.WithThroughputLimits())
	c := newClient(t, s, noRetries)
	ctx := context.Background()
	tp := azcosmos.NewManualThroughputProperties(400)
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := c.NewDatabase("db")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
		t.Fatal(err)
	}
	cc, _ := db.NewContainer("c")
	big := fmt.Sprintf(`{"id":"big","pk":"p","pad":%q}`, strings.Repeat("x", 1900*1024)) // 1.9 MB: about 1,160 RU
	pk := azcosmos.NewPartitionKeyString("p")
	if _, err := cc.CreateItem(ctx, pk, []byte(big), nil); err != nil {
		t.Fatal(err)
	}
	_, err := cc.ReadItem(ctx, pk, "big", nil)
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("got %v", err)
	}
	// Owed about 760 beyond this second's 400: this second's end (750 ms) plus one whole second.
	if got := re.RawResponse.Header.Get("x-ms-retry-after-ms"); got != "1750" {
		t.Errorf("retry-after %q, want 1750", got)
	}
	s.Advance(time.Second)
	if _, err := cc.ReadItem(ctx, pk, "big", nil); err == nil {
		t.Error("admitted while still in debt")
	}
	s.Advance(time.Second)
	if _, err := cc.ReadItem(ctx, pk, "big", nil); err != nil {
		t.Errorf("after the debt is paid: %v", err)
	}
}

// TestThroughputHotPartition: with four physical partitions each gets a quarter of the RU/s, so
// writes to one partition key throttle long before the same number spread over many keys does.
func TestThroughputHotPartition(t *testing.T) {
	s := cosmostest.NewServer(t, frozenClock(), cosmostest.WithThroughputLimits(), cosmostest.WithPartitionCount(4))
	c := newClient(t, s, noRetries)
	ctx := context.Background()
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := c.NewDatabase("db")
	tp := azcosmos.NewManualThroughputProperties(400) // 100 RU/s per partition
	for _, id := range []string{"hot", "spread"} {
		if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: id, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
			t.Fatal(err)
		}
	}
	hot, _ := db.NewContainer("hot")
	spread, _ := db.NewContainer("spread")
	const writes = 40
	if n, _ := writeUntilThrottled(t, hot, samePK, writes); n != 21 { // 20 × 4.95 = 99 < 100
		t.Errorf("hot key: throttled after %d writes, want 21", n)
	}
	if n, err := writeUntilThrottled(t, spread, func(i int) string { return fmt.Sprint("key-", i) }, writes); n != -1 {
		t.Errorf("spread keys: throttled after %d writes: %v", n, err)
	}
	// Only the hot key's partition is spent: other keys of the hot container still write.
	throttled, ok := 0, 0
	for i := range 12 {
		pk := fmt.Sprint("other-", i)
		_, err := hot.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), fmt.Appendf(nil, `{"id":"x","pk":%q}`, pk), nil)
		if err != nil {
			throttled++
		} else {
			ok++
		}
	}
	if ok == 0 || throttled == 0 {
		t.Errorf("other keys in the hot container: %d written, %d throttled; want both (the hot partition and the others)", ok, throttled)
	}
}

// TestThroughputQueryFanOut: a cross-partition query is refused when any partition it reads is
// spent; a query pinned to another partition key's partition is not.
func TestThroughputQueryFanOut(t *testing.T) {
	s := cosmostest.NewServer(t, frozenClock(), cosmostest.WithThroughputLimits(), cosmostest.WithPartitionCount(2))
	c := newClient(t, s, noRetries)
	ctx := context.Background()
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := c.NewDatabase("db")
	tp := azcosmos.NewManualThroughputProperties(400)
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
		t.Fatal(err)
	}
	cc, _ := db.NewContainer("c")
	if n, _ := writeUntilThrottled(t, cc, samePK, 100); n != 41 {
		t.Fatalf("admitted %d", n)
	}
	query := func(pk azcosmos.PartitionKey) error {
		p := cc.NewQueryItemsPager("SELECT * FROM c", pk, nil)
		for p.More() {
			if _, err := p.NextPage(ctx); err != nil {
				return err
			}
		}
		return nil
	}
	if st, _ := status(t, query(azcosmos.NewPartitionKeyString("hot"))); st != http.StatusTooManyRequests {
		t.Errorf("query on the hot key: %d", st)
	}
	cold := ""
	for i := 0; cold == "" && i < 50; i++ {
		k := fmt.Sprint("k", i)
		if query(azcosmos.NewPartitionKeyString(k)) == nil {
			cold = k
		}
	}
	if cold == "" {
		t.Error("every partition key's queries are throttled; the cold partition should not be")
	}
	if st, _ := status(t, query(azcosmos.NewPartitionKey())); st != http.StatusTooManyRequests {
		t.Errorf("cross-partition query reading the hot partition: %d", st)
	}
}
