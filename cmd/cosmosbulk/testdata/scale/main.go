// Command scale measures cmd/cosmosbulk at scale: it starts a cosmostest server in this process
// with a container of many physical partitions, writes a JSON Lines file, runs the importer as a
// separate process and reports its wall time, items/s, peak resident memory (getrusage
// ru_maxrss of the child, as /usr/bin/time -v reports it), its resident memory over time, and
// the progress bar (its ETA) at 5, 10, 30 and 60 s against the actual finish.
//
//	go run ./cmd/cosmosbulk/testdata/scale -items 1000000 -partitions 64 -ru 0
//
// It is a manual measurement, not a test (testdata is outside ./...).
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

func main() {
	items := flag.Int("items", 1_000_000, "lines in the file")
	parts := flag.Int("partitions", 64, "physical partitions of the container")
	ru := flag.Int("ru", 0, "the container's manual RU/s, enforced per partition (0: no offer, nothing enforced)")
	size := flag.Int("size", 1024, "approximate bytes per line")
	keys := flag.Int("keys", 100_000, "distinct partition key values")
	extra := flag.String("flags", "", "more cosmosbulk flags, space-separated (e.g. --create)")
	dir := flag.String("dir", "", "work directory (default: a new temporary one, removed at the end)")
	prebuilt := flag.String("bin", "", "the cosmosbulk binary to measure (default: built from this module)")
	flag.Parse()
	log.SetFlags(0)

	work := *dir
	if work == "" {
		d, err := os.MkdirTemp("", "cosmosbulk-scale")
		check(err)
		defer os.RemoveAll(d)
		work = d
	}
	bin := *prebuilt
	if bin == "" {
		bin = filepath.Join(work, "cosmosbulk")
		out, err := exec.Command("go", "build", "-o", bin, "github.com/cosmoskit/cosmoskit-go/cmd/cosmosbulk").CombinedOutput()
		if err != nil {
			log.Fatalf("go build: %v\n%s", err, out)
		}
	}

	opts := []cosmostest.Option{cosmostest.WithPartitionCount(*parts)}
	if *ru > 0 {
		opts = append(opts, cosmostest.WithThroughputLimits())
	}
	srv, err := cosmostest.Start(opts...)
	check(err)
	defer srv.Close()
	client, err := azcosmos.NewClientFromConnectionString(srv.ConnectionString(), srv.ClientOptions())
	check(err)
	ctx := context.Background()
	_, err = client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil)
	check(err)
	db, _ := client.NewDatabase("db")
	var copts *azcosmos.CreateContainerOptions
	if *ru > 0 {
		tp := azcosmos.NewManualThroughputProperties(int32(*ru))
		copts = &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}
	}
	_, err = db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, copts)
	check(err)

	file := filepath.Join(work, "items.jsonl")
	writeFile(file, *items, *size, *keys)
	st, _ := os.Stat(file)
	log.Printf("file: %d lines, %.0f MB; container: %d partitions, RU/s %d (0: unlimited)", *items, float64(st.Size())/1e6, *parts, *ru)

	args := []string{"--database", "db", "--container", "c", "--file", file, "--checkpoint", filepath.Join(work, "items.ckpt")}
	args = append(args, strings.Fields(*extra)...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "COSMOS_ENDPOINT="+srv.Endpoint(), "COSMOS_KEY="+srv.Key())
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	check(err)
	start := time.Now()
	check(cmd.Start())

	// The progress bar's frames (separated by \r), the first one past each mark.
	marks := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second, 60 * time.Second, 120 * time.Second}
	var mu sync.Mutex
	seen := map[time.Duration]string{}
	var lines []string
	slow := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		sc.Split(splitFrames)
		for sc.Scan() {
			f := strings.TrimSpace(sc.Text())
			if f == "" {
				continue
			}
			el := time.Since(start)
			mu.Lock()
			for _, m := range marks {
				if _, ok := seen[m]; !ok && el >= m && strings.Contains(f, "|") {
					seen[m] = fmt.Sprintf("%6.1fs %s", el.Seconds(), f)
				}
			}
			if !strings.Contains(f, "|") && !strings.Contains(f, "slow operation") {
				lines = append(lines, f)
			} else if strings.Contains(f, "slow operation") {
				slow++
			}
			mu.Unlock()
		}
	}()

	// Resident memory every second.
	var rss, server []string
	var peakSampled int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if *ru > 0 && len(server) < 10 {
					server = append(server, fmt.Sprintf("%ds:%d/%d", int(time.Since(start).Seconds()+0.5),
						srv.Throttled(cosmostest.RequestFilter{Operation: cosmostest.OpExecuteBatch}),
						srv.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpExecuteBatch})))
				}
				kb := statusKB(cmd.Process.Pid, "VmRSS")
				peakSampled = max(peakSampled, kb)
				if s := int(time.Since(start).Seconds()); s%10 == 0 || s < 10 {
					rss = append(rss, fmt.Sprintf("%ds:%dMB", s, kb/1024))
				}
			}
		}
	}()
	<-done
	err = cmd.Wait()
	wall := time.Since(start)
	close(stop)
	<-sampled
	ru2 := cmd.ProcessState.SysUsage().(*syscall.Rusage)

	log.Printf("exit: %v; stdout: %s", err, strings.TrimSpace(stdout.String()))
	for _, l := range lines {
		log.Printf("stderr: %s", l)
	}
	log.Printf("stderr: %d slow-operation warnings", slow)
	log.Printf("wall %.1fs, %.0f items/s, importer peak RSS %.0f MB (ru_maxrss), user %.1fs sys %.1fs",
		wall.Seconds(), float64(*items)/wall.Seconds(), float64(ru2.Maxrss)/1024,
		time.Duration(ru2.Utime.Nano()).Seconds(), time.Duration(ru2.Stime.Nano()).Seconds())
	log.Printf("RSS over time: %s", strings.Join(rss, " "))
	for _, m := range marks {
		if f, ok := seen[m]; ok {
			log.Printf("at %-4v (actual remaining %5.0fs): %s", m, (wall - m).Seconds(), f)
		}
	}
	if *ru > 0 {
		log.Printf("server, first seconds (bulk requests refused whole with 429 / sent, cumulative): %s", strings.Join(server, " "))
		log.Printf("server: %d bulk requests, %d refused whole with 429",
			srv.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpExecuteBatch}),
			srv.Throttled(cosmostest.RequestFilter{Operation: cosmostest.OpExecuteBatch}))
	}
	all, err := srv.Dump("db", "c")
	check(err)
	log.Printf("stored: %d items", len(all))
}

func writeFile(path string, n, size, keys int) {
	f, err := os.Create(path)
	check(err)
	w := bufio.NewWriterSize(f, 1<<20)
	pad := strings.Repeat("x", max(size-60, 1))
	for i := range n {
		fmt.Fprintf(w, `{"id":"i%d","pk":"k%d","n":%d,"pad":"%s"}`+"\n", i, i%keys, i, pad)
	}
	check(w.Flush())
	check(f.Close())
}

// splitFrames splits the progress bar's output on \r and \n.
func splitFrames(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// statusKB reads a "kB" field of /proc/<pid>/status (0 when gone).
func statusKB(pid int, field string) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, field+":"); ok {
			v, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return v
		}
	}
	return 0
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
