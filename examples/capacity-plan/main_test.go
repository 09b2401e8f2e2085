package main

import (
	"bytes"
	"context"
	"log/slog"
	"regexp"
	"testing"

	"go.uber.org/goleak"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The app measures its four patterns on cosmostest and prints a plan that uses them.
func TestCapacityPlanOnCosmostest(t *testing.T) {
	for _, v := range []string{cosmoskit.EnvEndpoint, cosmoskit.EnvKey, cosmoskit.EnvConnectionString, cosmoskit.EnvDatabase} {
		t.Setenv(v, "")
	}
	cfg := cosmoskit.ConfigFromEnv()
	cfg.Logger = slog.New(slog.DiscardHandler)
	var out bytes.Buffer
	if err := run(context.Background(), &out, cfg); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, re := range []string{
		`measured get-order\s+2\.00 RU per operation \(5 runs, 5 requests\)`,
		`measured create-order\s+11\.42 RU`,
		`(?m)^get-order\s+read\s+2\.00\s+measured\s+2\.00\s+-\s+2\.00\s+1000\.00`,
		`(?m)^customer-orders\s+query\s+\S+\s+measured`,
		`Physical partitions:\s+4 `,
		`Storage cost:\s+50\.00 USD/month`,
	} {
		if !regexp.MustCompile(re).MatchString(out.String()) {
			t.Errorf("output lacks %s:\n%s", re, out.String())
		}
	}
}
