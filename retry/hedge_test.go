package retry_test

import (
	"context"
	"errors"
	"go/parser"
	"go/token"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

// hedgedRead reads item "a" through retry.Hedge.
func (e *env) hedgedRead(ctx context.Context) error {
	_, err := retry.Hedge(ctx, e.p, func(ctx context.Context) (azcosmos.ItemResponse, error) {
		return e.cc.ReadItem(ctx, azcosmos.NewPartitionKeyString("p"), "a", nil)
	})
	return err
}

func TestHedgedReadCancelsTheLoser(t *testing.T) {
	e := newEnv(t, envRegions{preferred: []string{"East US", "West US"}}, retry.Options{
		Hedging: retry.HedgingOptions{Enable: true, Threshold: 20 * time.Millisecond}})
	east, west := e.host(t, "East US"), e.host(t, "West US")
	slow := e.s.InjectFault(cosmostest.Fault{Region: "East US", Operation: cosmostest.OpReadItem, Delay: time.Minute})
	start := time.Now()
	if err := e.hedgedRead(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("hedged read took %v", d)
	}
	// azcosmos refreshes the account's regions in the background (GET /), and such a request may
	// reach the slow region after the read: one is sent here, through the same transport, so that
	// the loser is told from it by its path (it once took the last East US request as the loser).
	refresh, err := http.NewRequest(http.MethodGet, "https://"+east+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := e.rec.Do(refresh); err == nil {
		_ = resp.Body.Close()
	}
	// The East US read lost: it ended, cancelled, before Hedge returned. Attempts are told apart
	// by host and path: only the read of item "a" is a candidate.
	const itemPath = "/dbs/db/colls/c/docs/a"
	var loser sent
	for _, a := range e.rec.attempts() {
		if a.host == east && a.path == itemPath {
			loser = a
		}
	}
	// (Under heavy load it may be cancelled before it reaches the transport at all.)
	if loser.host != "" && !errors.Is(loser.err, context.Canceled) {
		t.Errorf("losing attempt ended with %v, %d; want context.Canceled", loser.err, loser.status)
	}
	var winner sent
	for _, a := range e.rec.attempts() {
		if a.host == west && a.path == itemPath {
			winner = a
		}
	}
	if winner.status != http.StatusOK {
		t.Errorf("West US attempt: %+v", winner)
	}
	// Under load the East US attempt may be cancelled before it reaches the server.
	if slow.Hits() > 1 {
		t.Errorf("East US saw %d slow reads, want at most 1", slow.Hits())
	}
	// No breaker failure for the cancelled loser.
	if _, failures := breakerState(e.p, east, false); failures != 0 {
		t.Errorf("the cancelled loser counted as %d failures", failures)
	}
}

func TestHedgingNotNeededWhenFast(t *testing.T) {
	e := newEnv(t, envRegions{preferred: []string{"East US", "West US"}}, retry.Options{
		Hedging: retry.HedgingOptions{Enable: true, Threshold: 5 * time.Second}})
	for range 3 {
		if err := e.hedgedRead(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if got := e.s.Requests(regionReads("West US")); got != 0 {
		t.Errorf("%d hedges to West US for fast reads", got)
	}
}

func TestHedgeStartsAtOnceAfterATransientFailure(t *testing.T) {
	e := newEnv(t, envRegions{preferred: []string{"East US", "West US"}}, retry.Options{
		Hedging: retry.HedgingOptions{Enable: true, Threshold: time.Minute}})
	e.s.InjectFault(cosmostest.Fault{Region: "East US", Operation: cosmostest.OpReadItem, Status: http.StatusServiceUnavailable})
	if err := e.hedgedRead(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.s.Requests(regionReads("West US")); got != 1 {
		t.Errorf("%d reads in West US, want 1", got)
	}
	if got := e.s.Requests(regionReads("East US")); got != 1 {
		t.Errorf("%d reads in East US, want 1 (a pinned attempt does not fail over or retry)", got)
	}
}

func TestHedgedQuery(t *testing.T) {
	e := newEnv(t, envRegions{preferred: []string{"East US", "West US"}}, retry.Options{
		Hedging: retry.HedgingOptions{Enable: true, Threshold: 10 * time.Millisecond}})
	e.s.InjectFault(cosmostest.Fault{Region: "East US", Operation: cosmostest.OpQueryItems, Delay: time.Minute})
	page, err := retry.Hedge(context.Background(), e.p, func(ctx context.Context) (azcosmos.QueryItemsResponse, error) {
		pager := e.cc.NewQueryItemsPager("SELECT * FROM c WHERE c.id = @id", azcosmos.NewPartitionKeyString("p"),
			&azcosmos.QueryOptions{QueryParameters: []azcosmos.QueryParameter{{Name: "@id", Value: "a"}}})
		return pager.NextPage(ctx)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 1 {
		t.Fatalf("%d items, want 1", len(page.Items))
	}
}

func TestWritesAreNotHedged(t *testing.T) {
	e := newEnv(t, envRegions{preferred: []string{"West US", "East US"}}, retry.Options{
		Hedging: retry.HedgingOptions{Enable: true, Threshold: time.Millisecond}}, cosmostest.WithMultiWrite())
	e.s.InjectFault(cosmostest.Fault{Region: "West US", Operation: cosmostest.OpUpsertItem, Delay: 50 * time.Millisecond})
	// The pipeline never hedges writes by itself.
	if _, err := e.cc.UpsertItem(context.Background(), azcosmos.NewPartitionKeyString("p"), []byte(`{"id":"b","pk":"p"}`), nil); err != nil {
		t.Fatal(err)
	}
	if got := e.s.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpUpsertItem}); got != 1 {
		t.Errorf("%d upserts, want 1", got)
	}
	// A write passed to Hedge without HedgingOptions.Writes is refused before anything is sent.
	e.s.ResetRequests()
	_, err := retry.Hedge(context.Background(), e.p, func(ctx context.Context) (azcosmos.ItemResponse, error) {
		return e.cc.UpsertItem(ctx, azcosmos.NewPartitionKeyString("p"), []byte(`{"id":"c","pk":"p"}`), nil)
	})
	if err == nil {
		t.Fatal("a write was hedged without HedgingOptions.Writes")
	}
	if ve := new(cosmoserr.ValidationError); !errors.As(err, &ve) || ve.Field != "HedgingOptions.Writes" || !errors.Is(err, cosmoserr.ErrValidation) {
		t.Errorf("hedged write refused with %v, want a *cosmoserr.ValidationError for HedgingOptions.Writes", err)
	}
	if got := e.s.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpUpsertItem}); got != 0 {
		t.Errorf("%d upserts sent", got)
	}
}

func TestHedgingPerRequest(t *testing.T) {
	e := newEnv(t, envRegions{preferred: []string{"East US", "West US"}}, retry.Options{})
	e.s.InjectFault(cosmostest.Fault{Region: "East US", Operation: cosmostest.OpReadItem, Delay: time.Minute})
	ctx := retry.WithHedging(context.Background(), retry.HedgingOptions{Enable: true, Threshold: 10 * time.Millisecond})
	if err := e.hedgedRead(ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.s.Requests(regionReads("West US")); got != 1 {
		t.Errorf("%d hedged reads in West US, want 1", got)
	}
	// WithoutHedging on a hedging client: the slow region is waited for (here: until the deadline).
	e2 := newEnv(t, envRegions{preferred: []string{"East US", "West US"}}, retry.Options{
		Hedging: retry.HedgingOptions{Enable: true, Threshold: time.Millisecond}})
	e2.s.InjectFault(cosmostest.Fault{Region: "East US", Operation: cosmostest.OpReadItem, Delay: time.Minute})
	ctx2, cancel := context.WithTimeout(retry.WithoutHedging(context.Background()), 100*time.Millisecond)
	defer cancel()
	if err := e2.hedgedRead(ctx2); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("unhedged read = %v, want the deadline", err)
	}
	if got := e2.s.Requests(regionReads("West US")); got != 0 {
		t.Errorf("%d reads in West US without hedging", got)
	}
}

func TestHedgedWritesWhenAsked(t *testing.T) {
	e := newEnv(t, envRegions{preferred: []string{"West US", "East US"}}, retry.Options{
		Hedging: retry.HedgingOptions{Enable: true, Threshold: 10 * time.Millisecond, Writes: true}}, cosmostest.WithMultiWrite())
	e.s.InjectFault(cosmostest.Fault{Region: "West US", Operation: cosmostest.OpUpsertItem, Delay: time.Minute})
	if _, err := retry.Hedge(context.Background(), e.p, func(ctx context.Context) (azcosmos.ItemResponse, error) {
		return e.cc.UpsertItem(ctx, azcosmos.NewPartitionKeyString("p"), []byte(`{"id":"b","pk":"p"}`), nil)
	}); err != nil {
		t.Fatal(err)
	}
	if got := e.s.Requests(cosmostest.RequestFilter{Region: "East US", Operation: cosmostest.OpUpsertItem}); got != 1 {
		t.Errorf("%d upserts in East US, want the hedge", got)
	}
}

// TestNoUnsafeNoReflection: the package reaches into no other module's internals: no file of it
// imports unsafe or reflect.
func TestNoUnsafeNoReflection(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p := strings.Trim(imp.Path.Value, `"`); p == "unsafe" || p == "reflect" {
				t.Errorf("%s imports %s", name, p)
			}
		}
	}
}
