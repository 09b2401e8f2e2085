package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/schollz/progressbar/v3"

	"github.com/cosmoskit/cosmoskit-go/bulk"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
	"github.com/cosmoskit/cosmoskit-go/throughput"
)

// options are the command line.
type options struct {
	database, container, file, checkpoint string
	maxRU, maxFraction                    float64
	low, create, noBar                    bool
	globalGroup, control                  string
}

func parseArgs(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("cosmosbulk", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.database, "database", "", "database id (required)")
	fs.StringVar(&o.container, "container", "", "container id (required)")
	fs.StringVar(&o.file, "file", "", "JSON Lines file to import (required)")
	fs.StringVar(&o.checkpoint, "checkpoint", "", "checkpoint file: resume an interrupted import (default: none)")
	fs.Float64Var(&o.maxRU, "max-ru", 0, "cap the import at this many RU/s (default: no cap)")
	fs.Float64Var(&o.maxFraction, "max-fraction", 0, "cap the import at this fraction (0-1] of the container's provisioned RU/s (default: no cap)")
	fs.BoolVar(&o.low, "low-priority", false, "send the import's requests with Low priority (needs a cap)")
	fs.StringVar(&o.globalGroup, "global-group", "", "share the cap with every process in this global throughput group (needs a cap; default: none, the cap is this process's own)")
	fs.StringVar(&o.control, "control-container", "throughput-control", "the global group's control container in --database, partitioned on /groupId with time to live on")
	fs.BoolVar(&o.create, "create", false, "create instead of upsert (an existing id is reported, 409)")
	fs.BoolVar(&o.noBar, "no-progress", false, "no progress bar")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.database == "" || o.container == "" || o.file == "":
		return o, errors.New("--database, --container and --file are required")
	case o.maxRU < 0 || o.maxFraction < 0 || o.maxFraction > 1:
		return o, errors.New("--max-ru must be positive and --max-fraction in (0, 1]")
	case o.maxRU > 0 && o.maxFraction > 0:
		return o, errors.New("use --max-ru or --max-fraction, not both")
	case o.low && o.maxRU == 0 && o.maxFraction == 0:
		return o, errors.New("--low-priority needs --max-ru or --max-fraction")
	case o.globalGroup != "" && o.maxRU == 0 && o.maxFraction == 0:
		return o, errors.New("--global-group needs --max-ru or --max-fraction")
	case o.globalGroup != "" && o.control == "":
		return o, errors.New("--global-group needs --control-container")
	}
	return o, nil
}

// checkpoint is what the checkpoint file holds: the file it belongs to and the number of leading
// lines done.
type checkpoint struct {
	File    string    `json:"file"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"modTime"`
	Done    int64     `json:"done"`
}

func (o options) loadCheckpoint(st os.FileInfo) (checkpoint, error) {
	ck := checkpoint{File: o.file, Size: st.Size(), ModTime: st.ModTime().UTC()}
	if o.checkpoint == "" {
		return ck, nil
	}
	b, err := os.ReadFile(o.checkpoint)
	if errors.Is(err, os.ErrNotExist) {
		return ck, nil
	}
	if err != nil {
		return ck, err
	}
	var old checkpoint
	if err := json.Unmarshal(b, &old); err != nil {
		return ck, fmt.Errorf("checkpoint %s is not a cosmosbulk checkpoint", o.checkpoint)
	}
	if old.File != ck.File || old.Size != ck.Size || !old.ModTime.Equal(ck.ModTime) {
		return ck, fmt.Errorf("checkpoint %s belongs to another file (or the file changed): remove it to start over", o.checkpoint)
	}
	ck.Done = old.Done
	return ck, nil
}

func (o options) saveCheckpoint(ck checkpoint) error {
	if o.checkpoint == "" {
		return nil
	}
	b, _ := json.Marshal(ck)
	tmp := o.checkpoint + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, o.checkpoint)
}

// tracker maps operations to lines and keeps the checkpoint: the count of leading lines done.
type tracker struct {
	mu      sync.Mutex
	ck      checkpoint
	lineOf  map[int]int64 // operation index → line number (from 0), while pending
	doneSet map[int64]bool
}

func (t *tracker) sent(idx int, line int64) {
	t.mu.Lock()
	t.lineOf[idx] = line
	t.mu.Unlock()
}

// done marks a line done and advances the checkpoint over every leading line done.
func (t *tracker) done(line int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.doneSet[line] = true
	for t.doneSet[t.ck.Done] {
		delete(t.doneSet, t.ck.Done)
		t.ck.Done++
	}
}

func (t *tracker) result(idx int) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	line := t.lineOf[idx]
	delete(t.lineOf, idx)
	return line
}

func (t *tracker) snapshot() checkpoint {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ck
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseArgs(args, stderr)
	if err != nil {
		return err
	}
	cfg := cosmoskit.ConfigFromEnv()
	cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	// A bulk request slower than 3 s is the import working at its limit (paced, throttled), not
	// news: a 1,000,000-line import on a loaded machine logged 34,227 such lines over its bar.
	cfg.Diagnostics.DisableLatencyLog = true
	client, err := cosmoskit.New(cfg)
	if err != nil {
		return err
	}
	defer client.Close()
	cc, err := client.Container(o.database, o.container)
	if err != nil {
		return err
	}
	props, err := cc.Read(ctx, nil)
	if err != nil {
		return err
	}
	paths := props.ContainerProperties.PartitionKeyDefinition.Paths

	f, err := os.Open(o.file)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	ck, err := o.loadCheckpoint(st)
	if err != nil {
		return err
	}
	total, err := countLines(f)
	if err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}

	if o.maxRU > 0 || o.maxFraction > 0 {
		gopts := throughput.GroupOptions{Name: "cosmosbulk", TargetRUPerSecond: o.maxRU, TargetFraction: o.maxFraction}
		if o.low {
			gopts.Priority = azcosmos.PriorityLevelLow
		}
		g, stopGroup, err := o.group(ctx, client, cc, gopts)
		if err != nil {
			return err
		}
		defer stopGroup()
		ctx = throughput.WithGroup(ctx, g)
	}

	tr := &tracker{ck: ck, lineOf: map[int]int64{}, doneSet: map[int64]bool{}}
	var bar *progressbar.ProgressBar
	if !o.noBar {
		bar = progressbar.NewOptions64(total-ck.Done, progressbar.OptionSetWriter(stderr), progressbar.OptionShowCount(),
			progressbar.OptionSetDescription("importing"), progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionSetItsString("items"), progressbar.OptionShowIts(),
			// The ETA is the executor's (Progress.ETA: from the pacing at first, then the last
			// 10 s), not the bar's own average of its last few rates, which a job's first seconds
			// (windows growing from one request per partition) put at 2-4× the time left.
			progressbar.OptionSetPredictTime(false), progressbar.OptionShowElapsedTimeOnFinish())
	}
	var saveErr error
	var saveMu sync.Mutex
	save := func() {
		saveMu.Lock()
		defer saveMu.Unlock()
		if err := o.saveCheckpoint(tr.snapshot()); err != nil && saveErr == nil {
			saveErr = err
		}
	}
	x, err := bulk.New(client, o.database, o.container, bulk.Options{
		Total: total - ck.Done,
		OnProgress: func(p bulk.Progress) {
			save()
			if bar != nil {
				bar.Describe(fmt.Sprintf("%.0f RU/s, %.0f%% throttled, %s", p.RUPerSecond, 100*p.ThrottleRate, etaText(p)))
			}
		},
	})
	if err != nil {
		return err
	}

	kind := bulk.Upsert
	if o.create {
		kind = bulk.Create
	}
	var failed, imported int64
	fail := func(line int64, err error) {
		failed++
		_, _ = fmt.Fprintf(stderr, "line %d: %v\n", line+1, err)
	}
	var readErr error
	var badLines []struct {
		line int64
		err  error
	}
	var badMu sync.Mutex
	ops := func(yield func(bulk.Operation) bool) {
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 3<<20)
		idx := 0
		for line := int64(0); sc.Scan(); line++ {
			if line < ck.Done {
				continue
			}
			text := sc.Bytes()
			if len(strings.TrimSpace(string(text))) == 0 {
				tr.done(line)
				continue
			}
			doc := append([]byte(nil), text...)
			pk, err := keyOf(doc, paths)
			if err != nil {
				badMu.Lock()
				badLines = append(badLines, struct {
					line int64
					err  error
				}{line, err})
				badMu.Unlock()
				tr.done(line)
				continue
			}
			tr.sent(idx, line)
			idx++
			if !yield(bulk.Operation{Kind: kind, PartitionKey: pk, Document: doc}) {
				return
			}
		}
		readErr = sc.Err()
	}
	interrupted, resumed := false, ck.Done > 0
	for r, err := range x.Execute(ctx, ops) {
		if r.Index < 0 {
			return err
		}
		line := tr.result(r.Index)
		switch {
		case err == nil, resumed && o.create && r.StatusCode == http.StatusConflict:
			imported++
			tr.done(line)
		case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
			interrupted = true // not done: the next run sends it
		default:
			fail(line, err)
			tr.done(line)
		}
		if bar != nil {
			_ = bar.Add(1)
		}
	}
	for _, b := range badLines {
		fail(b.line, b.err)
	}
	if bar != nil {
		_ = bar.Finish()
		_, _ = fmt.Fprintln(stderr)
	}
	save()
	_, _ = fmt.Fprintf(stdout, "imported %d, failed %d, %d of %d lines done\n", imported, failed, tr.snapshot().Done, total)
	switch {
	case saveErr != nil:
		return fmt.Errorf("write the checkpoint: %w", saveErr)
	case readErr != nil:
		return fmt.Errorf("read %s: %w", o.file, readErr)
	case interrupted || ctx.Err() != nil:
		return errors.New("interrupted: run the same command again to resume")
	case failed > 0:
		return fmt.Errorf("%d lines failed", failed)
	}
	return nil
}

// group returns the import's throughput group: this process's own, or, with --global-group, its
// share of a global group, renewed in the background until stop is called.
func (o options) group(ctx context.Context, client *cosmoskit.Client, cc *azcosmos.ContainerClient, gopts throughput.GroupOptions) (*throughput.Group, func(), error) {
	if o.globalGroup == "" {
		g, err := throughput.NewGroup(ctx, cc, gopts)
		return g, func() {}, err
	}
	control, err := client.Container(o.database, o.control)
	if err != nil {
		return nil, nil, err
	}
	gopts.Name = o.globalGroup
	gg, err := throughput.NewGlobalGroup(ctx, cc, gopts, throughput.GlobalOptions{Control: control})
	if err != nil {
		return nil, nil, err
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = gg.Run(runCtx) // its only error, no control container, is WaitJoined's
	}()
	// Take part before sending: the first renewal counts this process and sets its share.
	if err := gg.WaitJoined(ctx); err != nil {
		cancel()
		<-done
		return nil, nil, fmt.Errorf("global group %s (control container %s): %w", o.globalGroup, o.control, err)
	}
	return gg.Group, func() { cancel(); <-done }, nil
}

// etaText is the progress bar's estimate of the time left.
func etaText(p bulk.Progress) string {
	if p.ETA <= 0 {
		return "ETA -"
	}
	return "ETA " + p.ETA.Round(time.Second).String()
}

// keyOf reads the partition key of a document at the container's paths.
func keyOf(doc []byte, paths []string) (partitionkey.Key, error) {
	var top map[string]any
	if err := json.Unmarshal(doc, &top); err != nil || top == nil {
		return partitionkey.Key{}, errors.New("not a JSON object")
	}
	vals := make([]any, len(paths))
	for i, p := range paths {
		var cur any = top
		for _, part := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
			m, ok := cur.(map[string]any)
			if !ok {
				return partitionkey.Key{}, fmt.Errorf("no value at the partition key path %s", p)
			}
			if cur, ok = m[part]; !ok {
				return partitionkey.Key{}, fmt.Errorf("no value at the partition key path %s", p)
			}
		}
		switch cur.(type) {
		case string, float64, bool, nil:
			vals[i] = cur
		default:
			return partitionkey.Key{}, fmt.Errorf("the value at the partition key path %s is not a string, number, bool or null", p)
		}
	}
	k := partitionkey.Of(vals...)
	return k, k.Err()
}

func countLines(r io.Reader) (int64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 3<<20)
	var n int64
	for sc.Scan() {
		n++
	}
	return n, sc.Err()
}
