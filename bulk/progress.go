package bulk

import "time"

// stats are a job's counters; owned by the scheduler.
type stats struct {
	succeeded, failed   int64
	charge              float64
	requests, throttled int64
	// at the last progress report, for the interval's rates
	lastAt                  time.Time
	lastCharge              float64
	lastRequests, lastThrot int64
}

func (s *stats) record(res Result) {
	if res.Err == nil {
		s.succeeded++
	} else {
		s.failed++
	}
	s.charge += res.RequestCharge
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
		left := j.opts.Total - p.Done
		p.ETA = time.Duration(float64(p.Elapsed) / float64(p.Done) * float64(max(left, 0)))
	}
	s.lastAt, s.lastCharge, s.lastRequests, s.lastThrot = now, s.charge, s.requests, s.throttled
	j.opts.OnProgress(p)
}
