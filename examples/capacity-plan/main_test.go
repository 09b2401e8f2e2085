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
		// A little under 2 KB: the documented read curve (2 KB: 1.04 RU), the write curve (2 KB:
		// 6.29 RU) + 0.2 per indexed term beyond two (the order has five), a replace twice that.
		`measured get-order\s+1\.03 RU per operation \(5 runs, 5 requests\)`,
		`measured create-order\s+6\.73 RU`,
		`measured update-order\s+13\.33 RU`,
		`(?m)^get-order\s+read\s+1\.03\s+measured\s+1\.04\s+-\s+1\.03\s+515\.00`,
		`(?m)^customer-orders\s+query\s+\S+\s+measured`,
		`Physical partitions:\s+5 `,        // 200 GB + 20% index
		`Storage cost:\s+60\.00 USD/month`, // 240 GB
	} {
		if !regexp.MustCompile(re).MatchString(out.String()) {
			t.Errorf("output lacks %s:\n%s", re, out.String())
		}
	}
}
