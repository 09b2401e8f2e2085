package bulk

import (
	"context"
	"testing"
	"time"

	"github.com/cosmoskit/cosmoskit-go/throughput"
)

// TestMeasuredRate: the rate over the last 10 s, since the start while the job is younger.
func TestMeasuredRate(t *testing.T) {
	start := time.Unix(1000, 0)
	var s stats
	at := func(sec int) time.Time { return start.Add(time.Duration(sec) * time.Second) }
	// 100 ops/s for 5 s, then 1,000 ops/s.
	done := func(sec int) int64 {
		if sec <= 5 {
			return int64(100 * sec)
		}
		return 500 + int64(1000*(sec-5))
	}
	for sec := 1; sec <= 30; sec++ {
		got := s.measuredRate(start, at(sec), done(sec))
		var want float64
		if time.Duration(sec)*time.Second < etaWindow {
			want = float64(done(sec)) / float64(sec)
		} else {
			want = float64(done(sec)-done(sec-10)) / 10
		}
		if got != want {
			t.Errorf("at %d s: %.1f ops/s, want %.1f", sec, got, want)
		}
		s.samples = append(s.samples, sample{at: at(sec), done: done(sec)})
	}
	if len(s.samples) > 12 {
		t.Errorf("%d samples kept, want about 10 s worth", len(s.samples))
	}
}

// TestETA: a paced job's first 10 s take the pacing's rate (capped by its group's target), an
// unpaced one's the measured rate; later, the measured rate of the last 10 s.
func TestETA(t *testing.T) {
	start := time.Unix(1000, 0)
	paced := func(ctx context.Context) *job {
		j := &job{ctx: ctx, start: start, ranges: map[string]*rangeState{}}
		for _, id := range []string{"0", "1"} {
			j.ranges[id] = newRangeState(id, 8, 1000) // 950 RU/s each
		}
		j.st.ran, j.st.ranCharge = 100, 500 // 5 RU per operation
		return j
	}
	now := start.Add(5 * time.Second)
	// Measured 200 ops/s (ramping up); the pacing allows 1,900 RU/s / 5 RU = 380 ops/s.
	if got, want := paced(context.Background()).eta(now, 5*time.Second, 1000, 38000), 100*time.Second; got != want {
		t.Errorf("paced, at 5 s: ETA %v, want %v", got, want)
	}
	g, err := throughput.NewGroup(context.Background(), nil, throughput.GroupOptions{Name: "g", TargetRUPerSecond: 500})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := paced(throughput.WithGroup(context.Background(), g)).eta(now, 5*time.Second, 1000, 10000), 100*time.Second; got != want {
		t.Errorf("paced, group of 500 RU/s, at 5 s: ETA %v, want %v", got, want)
	}
	unpaced := paced(context.Background())
	for _, r := range unpaced.ranges {
		r.rate = 0
	}
	if got, want := unpaced.eta(now, 5*time.Second, 1000, 10000), 50*time.Second; got != want {
		t.Errorf("unpaced, at 5 s: ETA %v, want %v (the measured 200 ops/s)", got, want)
	}
	j := paced(context.Background())
	j.st.samples = []sample{{at: start.Add(10 * time.Second), done: 2000}}
	now = start.Add(20 * time.Second)
	if got, want := j.eta(now, 20*time.Second, 5000, 3000), 10*time.Second; got != want {
		t.Errorf("paced, at 20 s: ETA %v, want %v (the measured 300 ops/s)", got, want)
	}
	if got := j.eta(now, 20*time.Second, 5000, 0); got != 0 {
		t.Errorf("nothing left: ETA %v", got)
	}
}
