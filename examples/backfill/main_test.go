package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"go.uber.org/goleak"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// TestMain fails the tests if a server, transport, executor or online worker goroutine outlives
// them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// The backfill, scaled down, against a cosmostest server with throughput limits: every profile
// ends with the tier its points earn, the online workload ran alongside and saw no 429, and the
// backfill stayed under its cap.
func TestBackfill(t *testing.T) {
	s := cosmostest.NewServer(t, cosmostest.WithPartitionCount(4), cosmostest.WithThroughputLimits())
	cfg := cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key(), Database: "bf", Logger: slog.New(slog.DiscardHandler)}
	var out bytes.Buffer
	rep, err := run(context.Background(), &out, cfg, params{Items: 2000, Throughput: 20_000})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	t.Logf("%+v\n%s", rep, out.String())
	docs, err := s.Dump("bf", "profiles")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2000 {
		t.Fatalf("%d profiles stored, want 2000", len(docs))
	}
	for _, d := range docs {
		var p profile
		if err := json.Unmarshal(d, &p); err != nil {
			t.Fatal(err)
		}
		if p.Tier == "" || p.Tier != tierOf(p.Points) {
			t.Fatalf("profile %s: tier %q, want %q", p.ID, p.Tier, tierOf(p.Points))
		}
	}
	if rep.Patched < 2000 || rep.Failed != 0 || rep.Missing != 0 {
		t.Errorf("patched %d, failed %d, missing %d", rep.Patched, rep.Failed, rep.Missing)
	}
	if rep.OnlineOps == 0 {
		t.Error("the online workload did not run")
	}
	if rep.OnlineThrottled != 0 {
		t.Errorf("the online workload saw %d 429s", rep.OnlineThrottled)
	}
	// 30% of 20,000 RU/s, with the group's one-second burst as slack.
	if rep.RUPerSecond > 1.3*6000 {
		t.Errorf("backfill at %.0f RU/s, over its 6,000 RU/s cap", rep.RUPerSecond)
	}
}
