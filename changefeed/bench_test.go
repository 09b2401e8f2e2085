package changefeed_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cosmoskit/cosmoskit-go/changefeed"
)

// BenchmarkProcessor measures end-to-end throughput against cosmostest (4 physical partitions):
// b.N changes written beforehand, then one or three instances with a no-op handler read them from
// the beginning; changes/s counts the time from Start until the last change is handled.
func BenchmarkProcessor(b *testing.B) {
	for _, instances := range []int{1, 3} {
		for _, maxItems := range []int{100, 1000} {
			b.Run(fmt.Sprintf("instances=%d/maxItems=%d", instances, maxItems), func(b *testing.B) {
				b.ReportAllocs()
				e := newEnv(b, 4)
				writeBench(b, e, b.N)
				var handled atomic.Int64
				h := func(_ context.Context, bt changefeed.Batch) error {
					handled.Add(int64(len(bt.Items)))
					return nil
				}
				o := fast()
				o.MaxItems = maxItems
				b.ResetTimer()
				start := time.Now()
				var ps []*changefeed.Processor
				for i := range instances {
					ps = append(ps, newProc(b, e, fmt.Sprint("i", i), h, o))
				}
				for handled.Load() < int64(b.N) {
					time.Sleep(100 * time.Microsecond)
				}
				elapsed := time.Since(start)
				b.StopTimer()
				b.ReportMetric(float64(b.N)/elapsed.Seconds(), "changes/s")
				for _, p := range ps {
					stop(b, p)
				}
			})
		}
	}
}
