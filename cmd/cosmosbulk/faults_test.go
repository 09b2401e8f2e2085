package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// linesFlag sets the size of the fault tests' file: go test ./cmd/cosmosbulk -run Faults -fault-lines 100000.
var linesFlag = flag.Int("fault-lines", 0, "lines in the fault tests' file (default 10,000; 3,000 with -short)")

func faultLines() int {
	switch {
	case *linesFlag > 0:
		return *linesFlag
	case testing.Short():
		return 3000
	}
	return 10000
}

// faultRun is what one faulted, killed and resumed import left behind.
type faultRun struct {
	lines     int
	ckAtKill  checkpoint                // the checkpoint file when the first run was killed
	writes    map[string]int            // applied writes per id, server side
	docs      map[string]map[string]any // stored documents by id
	faultHits int                       // bulk requests answered 503 or 410
	bulkCalls int                       // bulk requests the server saw
	splitAt   int                       // writes applied when the partition split
	secondOut string
}

// importUnderFaults imports a file of n lines with cosmosbulk (a separate process) into a
// container of 4 physical partitions while about 15% of bulk requests fail (503, and 410/1002
// as for a partition gone), splits a partition once writes are under way, kills the importer
// (SIGKILL) once 40% of the lines are applied, and runs the same command again to the
// end. extra are more cosmosbulk flags (--create).
func importUnderFaults(t *testing.T, n int, extra ...string) faultRun {
	t.Helper()
	s := cosmostest.NewServer(t, cosmostest.WithPartitionCount(4), cosmostest.WithWriteCounts())
	if err := s.CreateContainer("db", "c", "/pk"); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"id":"d%d","pk":"k%d","n":%d,"pad":"%s"}`+"\n", i, i%997, i, strings.Repeat("x", 64))
	}
	dir := t.TempDir()
	file, ck := filepath.Join(dir, "items.jsonl"), filepath.Join(dir, "items.ckpt")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	// Faults on bulk requests only: 7.5% 503, then 7.5% of all 410/1002 (8.1% of the rest).
	f503 := s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpExecuteBatch, Status: http.StatusServiceUnavailable, Probability: 0.075, Seed: 1})
	f410 := s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpExecuteBatch, Status: http.StatusGone, SubStatus: 1002, Probability: 0.081, Seed: 2})

	args := append([]string{"--database", "db", "--container", "c", "--file", file, "--checkpoint", ck, "--no-progress", "--max-ru", "40000"}, extra...)
	total := func() int {
		w, err := s.WriteCounts("db", "c")
		if err != nil {
			t.Error(err)
		}
		sum := 0
		for _, v := range w {
			sum += v
		}
		return sum
	}

	run := faultRun{lines: n, splitAt: -1}
	t0 := time.Now()
	first, out1 := startChild(t, s, args...) // a separate process: this test binary running cosmosbulk
	deadline := time.Now().Add(60 * time.Second)
	for {
		if time.Now().After(deadline) {
			_ = first.Process.Kill()
			_ = first.Wait()
			t.Fatalf("the first run did not pass 40%% of the file in 60 s:\n%s", out1)
		}
		if run.splitAt < 0 {
			if w := total(); w >= n/5 {
				if err := s.SplitRange("db", "c", "1"); err != nil {
					t.Fatal(err)
				}
				run.splitAt = w
			}
		}
		// Kill once 40% of the lines are applied and a checkpoint was written.
		if c, err := readCheckpoint(ck); err == nil && c.Done > 0 && run.splitAt >= 0 && total() >= n*2/5 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	err := first.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != -1 {
		t.Fatalf("first run: %v, want killed by a signal (it finished first?)\n%s", err, out1)
	}
	if run.ckAtKill, err = readCheckpoint(ck); err != nil {
		t.Fatal(err)
	}
	if run.ckAtKill.Done >= int64(n) {
		t.Fatalf("the first run was killed after its last checkpoint (%d lines): nothing to resume", n)
	}

	t1 := time.Now()
	second, out2 := startChild(t, s, args...)
	if err := second.Wait(); err != nil {
		t.Fatalf("second run: %v\n%s", err, out2)
	}
	run.secondOut = out2.String()
	t.Logf("first run %v (killed), second %v", t1.Sub(t0).Round(time.Millisecond), time.Since(t1).Round(time.Millisecond))
	if !strings.Contains(run.secondOut, fmt.Sprintf("%d of %d lines done", n, n)) {
		t.Errorf("second run: %s", run.secondOut)
	}
	run.faultHits = f503.Hits() + f410.Hits()
	run.bulkCalls = s.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpExecuteBatch})
	if f503.Hits() == 0 || f410.Hits() == 0 {
		t.Errorf("faults fired %d (503) and %d (410) times, want both", f503.Hits(), f410.Hits())
	}

	w, err := s.WriteCounts("db", "c")
	if err != nil {
		t.Fatal(err)
	}
	run.writes = map[string]int{}
	for k, v := range w {
		run.writes[k.ID] += v
	}
	all, err := s.Dump("db", "c")
	if err != nil {
		t.Fatal(err)
	}
	run.docs = map[string]map[string]any{}
	for _, d := range all {
		var m map[string]any
		if err := json.Unmarshal(d, &m); err != nil {
			t.Fatal(err)
		}
		id, _ := m["id"].(string)
		if _, dup := run.docs[id]; dup {
			t.Errorf("%s stored twice", id)
		}
		run.docs[id] = m
	}
	// 0 lost: every line stored, with its own content.
	lost := 0
	for i := range n {
		d, ok := run.docs[fmt.Sprintf("d%d", i)]
		if !ok || d["n"] != float64(i) || d["pk"] != fmt.Sprintf("k%d", i%997) {
			lost++
		}
	}
	if lost > 0 || len(run.docs) != n {
		t.Errorf("%d of %d lines lost or wrong, %d items stored", lost, n, len(run.docs))
	}
	t.Logf("%d lines; bulk requests %d, %d failed by a fault (%.1f%%); split at %d writes; killed at checkpoint %d; writes applied %d",
		n, run.bulkCalls, run.faultHits, 100*float64(run.faultHits)/float64(run.bulkCalls), run.splitAt, run.ckAtKill.Done, total())
	return run
}

func readCheckpoint(path string) (checkpoint, error) {
	var c checkpoint
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	return c, err
}

// lineOf is the line number (from 0) of id "d<line>".
func lineOf(id string) int {
	var i int
	_, _ = fmt.Sscanf(id, "d%d", &i)
	return i
}

// TestFaultsCreate: with --create, 0 lost and 0 duplicated means every line's item exists with
// its content and the server applied exactly one write to it across both runs: the lines past
// the checkpoint that the killed run had written answer 409 on the second run (counted as done)
// and are not written again.
func TestFaultsCreate(t *testing.T) {
	run := importUnderFaults(t, faultLines(), "--create")
	for id, w := range run.writes {
		if w != 1 {
			t.Errorf("%s written %d times", id, w)
		}
	}
}

// TestFaultsUpsert: with upserts, 0 lost as for creates; 0 duplicated means one item per line
// with that line's content, and a second write only where it is by design: a line at or past the
// checkpoint of the killed run, written once by each run (the same document again, so the item
// is as one write leaves it). No line before the checkpoint is written twice, and no line is
// written twice within one run (the executor sends an operation again only when it was not
// applied: a throttle, a 410, a 503 answered before serving).
func TestFaultsUpsert(t *testing.T) {
	run := importUnderFaults(t, faultLines())
	again := 0
	for id, w := range run.writes {
		switch {
		case w == 1:
		case w == 2 && int64(lineOf(id)) >= run.ckAtKill.Done:
			again++
		default:
			t.Errorf("%s (line %d, checkpoint %d) written %d times", id, lineOf(id), run.ckAtKill.Done, w)
		}
	}
	t.Logf("%d lines past the checkpoint written again by the second run", again)
}
