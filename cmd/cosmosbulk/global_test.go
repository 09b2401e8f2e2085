package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// childArgsEnv carries the command line of a cosmosbulk process the tests start by running their
// own binary again (TestMain runs cosmosbulk instead of the tests when it is set), separated by
// the unit separator (U+001F: an environment variable cannot hold NUL).
const childArgsEnv = "COSMOSBULK_TEST_CHILD_ARGS"

// childMain is main for a child process: run with the arguments of childArgsEnv, exit 1 on error.
func childMain(args string) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, strings.Split(args, "\x1f"), os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "cosmosbulk:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// startChild starts cosmosbulk with args as another OS process against server s.
func startChild(tb testing.TB, s *cosmostest.Server, args ...string) (*exec.Cmd, *bytes.Buffer) {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childArgsEnv+"="+strings.Join(args, "\x1f"), "COSMOS_ENDPOINT="+s.Endpoint(), "COSMOS_KEY="+s.Key())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	return cmd, &out
}

var (
	globalWindows = flag.Int("global.windows", 7, "10 s windows of BenchmarkGlobalGroupTwoProcesses")
	globalStagger = flag.Duration("global.stagger", 2*time.Second, "how long after the first process BenchmarkGlobalGroupTwoProcesses starts the second")
)

const (
	globalRU       = 10000
	globalFraction = 0.3
	globalWindow   = 10 * time.Second
)

// BenchmarkGlobalGroupTwoProcesses: two cosmosbulk processes (this test binary run again) import
// 1 KB documents into one container (4 physical partitions, 10,000 RU/s, throughput limits) of
// an in-process cosmostest server listening on a loopback port, both in one global group capped
// at 30% (--global-group import --max-fraction 0.3 --low-priority); the second starts
// -global.stagger after the first. Each 10 s window's RU is what the server charged the
// container's bulk requests in it, from both processes together, sampled by the wall clock from
// the first process's start; the first 15 seconds are logged with the shares the processes'
// records name (go test -v shows every line).
func BenchmarkGlobalGroupTwoProcesses(b *testing.B) {
	for b.Loop() {
		windows, rates := runTwoProcesses(b, *globalWindows, *globalStagger, globalWindow)
		target := globalFraction * globalRU * globalWindow.Seconds()
		hi, hiAfter, loAfter := 0.0, 0.0, math.Inf(1)
		for i, ru := range windows {
			pct := 100 * ru / target
			b.Logf("window %d (%2d-%2d s): both processes %6.0f RU = %5.1f%% of the cap %.0f", i+1, i*10, (i+1)*10, ru, pct, target)
			hi = max(hi, pct)
			if i > 0 {
				hiAfter, loAfter = max(hiAfter, pct), min(loAfter, pct)
			}
		}
		hiSec := 0.0
		for i, r := range rates {
			if i > 0 {
				hiSec = max(hiSec, 100*r/(globalFraction*globalRU))
			}
		}
		b.ReportMetric(hi, "max-window-%cap")
		b.ReportMetric(hiSec, "max-1s-after-first-%cap")
		b.ReportMetric(hiAfter, "max-later-window-%cap")
		b.ReportMetric(loAfter, "min-later-window-%cap")
	}
}

// runTwoProcesses runs the two processes for windows windows and returns each window's RU, and
// each second's RU/s (the RU charged since the last sample over the time since).
func runTwoProcesses(tb testing.TB, windows int, stagger, window time.Duration) (ws, rates []float64) {
	var secs []float64
	tb.Helper()
	s := cosmostest.NewServer(tb, cosmostest.WithPartitionCount(4), cosmostest.WithThroughputLimits())
	client, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		tb.Fatal(err)
	}
	db, _ := client.NewDatabase("db")
	tp := azcosmos.NewManualThroughputProperties(globalRU)
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2}},
		&azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
		tb.Fatal(err)
	}
	ttl := int32(-1)
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "throughput-control", DefaultTimeToLive: &ttl,
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/groupId"}}}, nil); err != nil {
		tb.Fatal(err)
	}
	// Enough lines for either process to spend the whole cap alone for the whole run.
	lines := int(globalFraction*globalRU/5*(float64(windows)*window.Seconds()+stagger.Seconds())) + 1000
	bulkRU := func() float64 {
		return s.RequestCharge(cosmostest.RequestFilter{Container: "c", Operation: cosmostest.OpExecuteBatch})
	}
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	defer func() {
		for i, c := range cmds {
			_ = c.Process.Signal(os.Interrupt)
			_ = c.Wait()
			if out := outs[i].String(); strings.Contains(out, "panic") || strings.Contains(out, "DATA RACE") {
				tb.Errorf("process %d:\n%s", i+1, out)
			}
		}
	}()
	files := []string{writeDocs(tb, 0, lines), writeDocs(tb, 1, lines)}
	start := func(p int) {
		c, out := startChild(tb, s, "--database", "db", "--container", "c", "--file", files[p], "--no-progress",
			"--max-fraction", fmt.Sprint(globalFraction), "--low-priority", "--global-group", "import")
		cmds, outs = append(cmds, c), append(outs, out)
	}
	start(0)
	t0 := time.Now()
	// One sample a second from the first process's start (the server had charged no bulk RU
	// before it); windows are ten of them.
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		prev, prevAt := 0.0, t0
		for k := 1; k <= windows*int(window/time.Second); k++ {
			time.Sleep(time.Until(t0.Add(time.Duration(k) * time.Second)))
			ru, at := bulkRU(), time.Now()
			secs = append(secs, ru-prev)
			rates = append(rates, (ru-prev)/at.Sub(prevAt).Seconds())
			prev, prevAt = ru, at
			if k <= 15 {
				tb.Logf("second %2d: %5.0f RU/s; the shares the control container's records name: %s", k, rates[k-1], shares(tb, s))
			}
		}
	}()
	time.Sleep(time.Until(t0.Add(stagger)))
	start(1)
	<-sampled
	per := int(window / time.Second)
	for i := range windows {
		sum := 0.0
		for _, ru := range secs[i*per : (i+1)*per] {
			sum += ru
		}
		ws = append(ws, sum)
	}
	for i, c := range cmds {
		if c.ProcessState != nil {
			tb.Fatalf("process %d ended early:\n%s", i+1, outs[i])
		}
	}
	return ws, rates
}

// writeDocs writes n documents of 1 KB (5.15 RU an upsert) for process p.
func writeDocs(tb testing.TB, p, n int) string {
	tb.Helper()
	var b strings.Builder
	pad := strings.Repeat("x", 700)
	for i := range n {
		fmt.Fprintf(&b, `{"id":"p%d-%d","pk":"k%d","pad":%q}`+"\n", p, i, i%1000, pad)
	}
	path := filepath.Join(tb.TempDir(), fmt.Sprintf("p%d.jsonl", p))
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// shares lists the shares the control container's records name, in RU/s.
func shares(tb testing.TB, s *cosmostest.Server) string {
	docs, err := s.Dump("db", "throughput-control")
	if err != nil {
		tb.Error(err) // from the sampling goroutine: no Fatal
		return "?"
	}
	var out []string
	for _, d := range docs {
		var r struct {
			Share float64 `json:"share"`
		}
		_ = json.Unmarshal(d, &r)
		out = append(out, fmt.Sprintf("%.0f", r.Share))
	}
	sort.Strings(out)
	return "[" + strings.Join(out, " ") + "]"
}
