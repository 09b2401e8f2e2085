package cosmoskit_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

// lockedBuffer is a bytes.Buffer safe for the concurrent writes of a slog handler.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestBreakerThroughNew(t *testing.T) {
	var logs lockedBuffer
	cfg := cosmoskit.Config{
		Diagnostics: diagnostics.Options{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))},
		Retry:       retry.Options{Breaker: retry.BreakerOptions{ReadFailureThreshold: 2, OpenInterval: time.Hour}},
	}
	s, c, cc := twoRegions(t, cfg)
	s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpReadItem, Status: http.StatusServiceUnavailable})
	read := func() error {
		_, err := cc.ReadItem(context.Background(), azcosmos.NewPartitionKeyString("a"), "1", nil)
		return err
	}
	for range 2 {
		if err := read(); err == nil {
			t.Fatalf("read = %v, want the 503", err)
		}
	}
	if got := strings.Count(logs.String(), "circuit breaker state changed"); got != 2 {
		t.Errorf("%d state changes logged, want 2 (one per region):\n%s", got, logs.String())
	}
	open := 0
	for _, b := range c.Retry().Breakers() {
		if b.State == retry.StateOpen {
			open++
		}
	}
	if open != 2 {
		t.Errorf("%d open breakers, want 2: %+v", open, c.Retry().Breakers())
	}
	// Every breaker open: the read is not refused but sent, half-open, to one region.
	s.ResetRequests()
	if err := read(); err == nil {
		t.Fatalf("read = %v, want it sent (and its 503)", err)
	}
	if n := s.Requests(cosmostest.RequestFilter{}); n != 1 {
		t.Errorf("%d requests with every breaker open, want 1 (the least recently opened region)", n)
	}
	open = 0
	for _, b := range c.Retry().Breakers() {
		if b.State == retry.StateOpen {
			open++
		}
	}
	if open != 2 {
		t.Errorf("%d open breakers, want 2: %+v", open, c.Retry().Breakers())
	}
}

func TestHedgingThroughNew(t *testing.T) {
	s, c, cc := twoRegions(t, cosmoskit.Config{Retry: retry.Options{Hedging: retry.HedgingOptions{Enable: true, Threshold: 10 * time.Millisecond}}})
	s.InjectFault(cosmostest.Fault{Region: "West US", Operation: cosmostest.OpReadItem, Delay: time.Minute})
	if _, err := retry.Hedge(context.Background(), c.Retry(), func(ctx context.Context) (azcosmos.ItemResponse, error) {
		return cc.ReadItem(ctx, azcosmos.NewPartitionKeyString("a"), "1", nil)
	}); err != nil {
		t.Fatal(err)
	}
	if n := s.Requests(cosmostest.RequestFilter{Region: "East US", Operation: cosmostest.OpReadItem}); n != 1 {
		t.Errorf("%d hedged reads in East US, want 1", n)
	}
}
