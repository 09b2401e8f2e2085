package vector_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/vector"
)

// BenchmarkSearchTop10OutOfProcess is BenchmarkSearchTop10 with cosmostest in another process (the
// command, built by the benchmark, one process per partition count), so that allocs/op counts the
// client's allocations alone: the "client allocations" of a top-10 search on 8 physical
// partitions against 1. Loading the 20,000 documents takes about a minute per process.
func BenchmarkSearchTop10OutOfProcess(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "cosmostest")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/cosmoskit/cosmoskit-go/cmd/cosmostest").CombinedOutput(); err != nil {
		b.Skipf("cannot build cmd/cosmostest: %v\n%s", err, out)
	}
	q := corpus(1, largeDims, 5)[0].Embedding
	for _, parts := range []int{1, 8} {
		endpoint := startCosmostest(b, bin, parts)
		cred, _ := azcosmos.NewKeyCredential(cosmoskit.EmulatorKey)
		client, err := azcosmos.NewClientWithKey(endpoint, cred, nil)
		if err != nil {
			b.Fatal(err)
		}
		s := newSearcher(b, loadLarge(b, client, parts), vector.Options{Path: "/cos"})
		b.Run(fmt.Sprintf("partitions=%d", parts), func(b *testing.B) {
			ctx := context.Background()
			if _, err := s.Search(ctx, vector.Query{Vector: q, K: 10}); err != nil { // plan and ranges cached
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				res, err := s.Search(ctx, vector.Query{Vector: q, K: 10})
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Hits) != 10 {
					b.Fatalf("%d hits", len(res.Hits))
				}
			}
		})
	}
}

// startCosmostest runs the command bin over plain HTTP with parts physical partitions per
// container and returns its endpoint once it answers; the process is killed at cleanup.
func startCosmostest(b *testing.B, bin string, parts int) string {
	b.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--partitions", strconv.Itoa(parts), "--log-level", "quiet")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	endpoint := "http://127.0.0.1:" + strconv.Itoa(port) + "/"
	for deadline := time.Now().Add(20 * time.Second); ; {
		if resp, err := http.Get(endpoint); err == nil {
			_ = resp.Body.Close()
			http.DefaultClient.CloseIdleConnections()
			return endpoint
		}
		if time.Now().After(deadline) {
			b.Fatal("cosmostest did not answer within 20s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
