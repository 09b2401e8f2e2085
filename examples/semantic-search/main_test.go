package main

import (
	"bytes"
	"context"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestSemanticSearchWithoutEnvironment(t *testing.T) {
	for _, v := range []string{cosmoskit.EnvEndpoint, cosmoskit.EnvKey, cosmoskit.EnvConnectionString, cosmoskit.EnvDatabase, cosmoskit.EnvPreferredRegions, cosmoskit.EnvExcludedRegions, cosmoskit.EnvApplicationName} {
		t.Setenv(v, "")
	}
	cfg := cosmoskit.ConfigFromEnv()
	cfg.Logger = slog.New(slog.DiscardHandler)
	var out bytes.Buffer
	if err := run(context.Background(), &out, cfg); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	// The hash embedder is deterministic: the same hits, in the same order, on every machine.
	want := []string{
		`^COSMOS_ENDPOINT is not set: started an in-process cosmostest server with 4 physical partitions$`,
		`^container "passages" is ready: cosine embeddings of 1024 dimensions at /embedding, full-text on /text$`,
		`^embedded and stored 9 passages$`,
		`^$`,
		`^single partition \(topic camping\): "boils water for coffee" \(one partition, quantizedFlat index, [1-9][0-9.]* RU\)$`,
		`^  0\.6030  camping  stove `, `^  0\.1768  camping  bag `,
		`^$`,
		`^cross-partition: "boils water for coffee" \(every partition, quantizedFlat index, [1-9][0-9.]* RU\)$`,
		`^  0\.6030  camping  stove `, `^  0\.4743  kitchen  kettle `, `^  0\.1890  hiking   boots `,
		`^$`,
		`^filtered \(topic is not kitchen\): "mountain trails" \(every partition, quantizedFlat index, [1-9][0-9.]* RU\)$`,
		`^  0\.5345  hiking   boots `, `^  0\.4082  hiking   poles `, `^  0\.3922  camping  tent `,
		`^$`,
		`^hybrid: "coffee at the campsite" with keywords \["boils" "water"\] \(every partition, RRF of vector and BM25 ranks, [1-9][0-9.]* RU\)$`,
		`^  #1 0\.6030  camping  stove `, `^  #2 0\.3536  kitchen  espresso `, `^  #3 0\.1768  camping  bag `,
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, w := range want {
		if !regexp.MustCompile(w).MatchString(lines[i]) {
			t.Fatalf("line %d = %q, want %s\n%s", i+1, lines[i], w, out.String())
		}
	}
}
