package bulk

import (
	"math"
	"time"

	"github.com/cosmoskit/cosmoskit-go/throughput"
)

// etaWindow is the span of the measured rate the ETA divides the operations left by, and how long
// a paced job's ETA comes from its pacing instead (see job.eta).
const etaWindow = 10 * time.Second

// stats are a job's counters; owned by the scheduler.
type stats struct {
	succeeded, failed   int64
	charge              float64
	requests, throttled int64
	// ran and ranCharge count the operations that ran (were charged) and their charge: the
	// average charge of an operation, for the ETA.
	ran       int64
	ranCharge float64
	// at the last progress report, for the interval's rates
	lastAt                  time.Time
	lastCharge              float64
	lastRequests, lastThrot int64
	// samples are (time, done) at the progress reports of the last etaWindow, oldest first; the
	// first is the newest one at least etaWindow old, when there is one.
	samples []sample
}

type sample struct {
	at   time.Time
	done int64
}

func (s *stats) record(res Result) {
	if res.Err == nil {
		s.succeeded++
	} else {
		s.failed++
	}
	s.charge += res.RequestCharge
}

// measuredRate is the operations done per second over the last etaWindow (since start, when the
// job is younger), done operations done at now.
func (s *stats) measuredRate(start, now time.Time, done int64) float64 {
	for len(s.samples) > 1 && now.Sub(s.samples[1].at) >= etaWindow {
		s.samples = s.samples[1:]
	}
	base := sample{at: start}
	if len(s.samples) > 0 && now.Sub(s.samples[0].at) >= etaWindow {
		base = s.samples[0]
	}
	d := now.Sub(base.at).Seconds()
	if d <= 0 {
		return 0
	}
	return float64(done-base.done) / d
}

// capacity is the operations per second the job's pacing allows: the RU/s rates of the partitions
// it sends to, capped by the target of the context's throughput group, divided by the average
// charge of an operation that ran. 0 when unknown: nothing charged yet, or a partition unpaced
// (its rate unknown until it is throttled) and no group.
func (j *job) capacity() float64 {
	if j.st.ran == 0 || j.st.ranCharge <= 0 || len(j.ranges) == 0 {
		return 0
	}
	ru := 0.0
	for _, r := range j.ranges {
		if r.rate <= 0 {
			ru = math.Inf(1)
			break
		}
		ru += r.rate
	}
	if g := throughput.FromContext(j.ctx); g != nil && g.Target() > 0 {
		ru = min(ru, g.Target())
	}
	if math.IsInf(ru, 1) {
		return 0
	}
	return ru / (j.st.ranCharge / float64(j.st.ran))
}

// eta estimates the time left for left operations at now: left divided by the rate the job
// measured over the last etaWindow, except that during its first etaWindow a job whose pacing
// is known (capacity) uses that rate: its windows start at one request per partition and grow
// for a few seconds, so the rate measured then understates the rest of the job (an ETA from it
// was 2-4× the actual time left at 5 s and 10 s of a 64-partition import). 0 when unknown.
func (j *job) eta(now time.Time, elapsed time.Duration, done, left int64) time.Duration {
	rate := j.st.measuredRate(j.start, now, done)
	if c := j.capacity(); c > 0 && elapsed < etaWindow {
		rate = c
	}
	if rate <= 0 || left <= 0 {
		return 0
	}
	return time.Duration(float64(left) / rate * float64(time.Second))
}

// progress calls Options.OnProgress (every interval, and once at the end).
func (j *job) progress(final bool) {
	if j.opts.OnProgress == nil {
		return
	}
	now := time.Now()
	s := &j.st
	since := s.lastAt
	if since.IsZero() {
		since = j.start
	}
	p := Progress{
		Done: s.succeeded + s.failed, Succeeded: s.succeeded, Failed: s.failed, Pending: j.pending,
		RequestCharge: s.charge, Requests: s.requests, ThrottledRequests: s.throttled, Elapsed: now.Sub(j.start),
	}
	if d := now.Sub(since).Seconds(); d > 0 {
		p.RUPerSecond = (s.charge - s.lastCharge) / d
	}
	if n := s.requests - s.lastRequests; n > 0 {
		p.ThrottleRate = float64(s.throttled-s.lastThrot) / float64(n)
	}
	if j.opts.Total > 0 && p.Done > 0 && !final {
		p.ETA = j.eta(now, p.Elapsed, p.Done, max(j.opts.Total-p.Done, 0))
	}
	s.samples = append(s.samples, sample{at: now, done: p.Done})
	s.lastAt, s.lastCharge, s.lastRequests, s.lastThrot = now, s.charge, s.requests, s.throttled
	j.opts.OnProgress(p)
}
