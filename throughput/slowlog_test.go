package throughput_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
	"github.com/cosmoskit/cosmoskit-go/throughput"
)

// lockedBuffer is a bytes.Buffer for a logger written from the pipeline's goroutines.
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

// An operation that waited for its group's budget is not logged as slow for that wait (the caller
// chose the budget; the service answered at once), and the wait is in its diagnostics.Stats.
func TestGroupWaitIsNotSlow(t *testing.T) {
	s := cosmostest.NewServer(t)
	var logs lockedBuffer
	var waited []time.Duration
	var mu sync.Mutex
	c, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key(),
		Logger:           slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Diagnostics:      diagnostics.Options{PointLatencyThreshold: 50 * time.Millisecond},
		PerRetryPolicies: []policy.Policy{throughput.Policy(), statsProbe{&mu, &waited}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if err := s.CreateContainer("db", "c", "/pk"); err != nil {
		t.Fatal(err)
	}
	cc, err := c.Container("db", "c")
	if err != nil {
		t.Fatal(err)
	}
	// 20 RU/s: each upsert after the first (about 6 RU) waits about 300 ms for the budget.
	g, err := throughput.NewGroup(context.Background(), nil, throughput.GroupOptions{Name: "slow", TargetRUPerSecond: 20})
	if err != nil {
		t.Fatal(err)
	}
	ctx := throughput.WithGroup(context.Background(), g)
	pk := azcosmos.NewPartitionKeyString("p")
	for i := range 3 {
		if _, err := cc.UpsertItem(ctx, pk, fmt.Appendf(nil, `{"id":"d%d","pk":"p"}`, i), nil); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	var total time.Duration
	for _, w := range waited {
		total += w
	}
	if total < 100*time.Millisecond {
		t.Fatalf("the upserts waited %v for the group in all (%v): the test did not make them wait", total, waited)
	}
	if strings.Contains(logs.String(), "slow operation") {
		t.Errorf("waiting for the group was logged as a slow operation:\n%s", logs.String())
	}
}

// statsProbe records, after each attempt, the group wait diagnostics.StatsFromContext reports.
type statsProbe struct {
	mu     *sync.Mutex
	waited *[]time.Duration
}

func (p statsProbe) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if st, ok := diagnostics.StatsFromContext(req.Raw().Context()); ok {
		p.mu.Lock()
		*p.waited = append(*p.waited, st.GroupWait)
		p.mu.Unlock()
	}
	return resp, err
}
