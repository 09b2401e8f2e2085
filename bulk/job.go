package bulk

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// item is one operation in a job.
type item struct {
	idx      int
	op       Operation
	p        prepared
	attempts int
	charge   float64
	enq      time.Time // when it (last) joined its range's queue
	last     error     // the answer that sent it back, the result if attempts run out
}

// input is what the reading goroutine hands the scheduler.
type input struct {
	idx int
	op  Operation
	p   prepared
	err error
}

// batch is one request in flight.
type batch struct {
	r      *rangeState
	items  []*item
	sentAt time.Time
	rep    reply
}

// job is one Execute: a reading goroutine, a scheduler goroutine that owns every field below,
// and one goroutine per request in flight.
type job struct {
	e      *Executor
	opts   Options
	ctx    context.Context // the caller's: cancellation stops dispatch
	sendTo context.Context // requests in flight: not cancelled with ctx, so their outcome is known
	info   *containerInfo
	rmap   routingMap
	ranges map[string]*rangeState
	budget float64 // each partition's share of the provisioned RU/s, 0 unknown

	in   chan input
	done chan *batch
	out  chan Result

	inputDone, stopped bool
	pending            int // read, not reported
	inflight           int // requests
	start              time.Time
	st                 stats
}

// start reads the container's metadata and starts the job's goroutines.
func (e *Executor) start(ctx context.Context, ops iter.Seq[Operation]) (*job, error) {
	info, err := e.readContainer(ctx)
	if err != nil {
		return nil, err
	}
	rmap, err := e.readRanges(ctx)
	if err != nil {
		return nil, err
	}
	j := &job{
		e: e, opts: e.opts, ctx: ctx, sendTo: context.WithoutCancel(ctx), info: info, rmap: rmap, budget: e.rangeBudget(ctx, len(rmap)),
		ranges: map[string]*rangeState{}, in: make(chan input, 64), done: make(chan *batch), out: make(chan Result, 256),
		start: time.Now(),
	}
	go j.read(ops)
	go j.run()
	return j, nil
}

// read checks each operation of ops and hands it to the scheduler, until ops ends or the job is
// cancelled (an operation pulled after cancellation is not handed over, so not reported).
func (j *job) read(ops iter.Seq[Operation]) {
	defer close(j.in)
	idx := 0
	for op := range ops {
		if j.ctx.Err() != nil {
			return
		}
		x := input{idx: idx, op: op}
		x.p, x.err = j.info.prepare(op)
		if x.err == nil && op.container != "" && op.container != j.e.coll {
			x.err = invalid(cosmoserr.ErrValidation, "Operation", "comes from a repository of another container than the executor's")
		}
		x.op.Document, x.op.Patch = nil, nil // encoded in x.p; the result does not hold them
		select {
		case j.in <- x:
		case <-j.ctx.Done():
			return
		}
		idx++
	}
}

// run is the scheduler.
func (j *job) run() {
	defer close(j.out)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var tick <-chan time.Time
	if j.opts.OnProgress != nil {
		t := time.NewTicker(j.opts.ProgressInterval)
		defer t.Stop()
		tick = t.C
	}
	ctxDone := j.ctx.Done()
	in := j.in
	for !j.over() {
		var recv chan input
		if !j.inputDone && (j.stopped || j.pending < j.opts.MaxPending) {
			recv = in
		}
		now := time.Now()
		if wake := j.dispatch(now); !wake.IsZero() {
			timer.Reset(max(wake.Sub(now), time.Millisecond))
		}
		select {
		case x, ok := <-recv:
			if !ok {
				j.inputDone = true
				continue
			}
			j.accept(x)
		case b := <-j.done:
			j.complete(b)
		case <-timer.C:
		case <-ctxDone:
			ctxDone = nil
			j.stop()
		case <-tick:
			j.progress(false)
		}
	}
	j.progress(true)
}

// over reports that the job has nothing more to do: the input ended (or the job was cancelled)
// and every operation read is reported.
func (j *job) over() bool { return (j.inputDone || j.stopped) && j.pending == 0 && j.inflight == 0 }

// accept takes one operation from the reader.
func (j *job) accept(x input) {
	it := &item{idx: x.idx, op: x.op, p: x.p}
	j.pending++
	if x.err != nil {
		j.finish(it, Result{Err: x.err})
		return
	}
	if j.stopped {
		j.finish(it, Result{Err: j.ctx.Err()})
		return
	}
	it.enq = time.Now()
	r := j.route(it)
	r.queue = append(r.queue, it)
}

// route returns the range state of it's partition.
func (j *job) route(it *item) *rangeState {
	pr := j.rmap.lookup(it.p.epk)
	r := j.ranges[pr.ID]
	if r == nil {
		r = newRangeState(pr.ID, j.opts.MaxConcurrencyPerRange, j.budget)
		j.ranges[pr.ID] = r
	}
	return r
}

// stop fails every queued operation with the context's error; requests in flight complete.
func (j *job) stop() {
	j.stopped = true
	for _, r := range j.ranges {
		for _, it := range r.queue {
			j.finish(it, Result{Err: j.ctx.Err()})
		}
		r.queue = nil
	}
}

// dispatch sends every request the ranges may send now and returns when to look again (zero:
// when something happens).
func (j *job) dispatch(now time.Time) time.Time {
	if j.stopped {
		return time.Time{}
	}
	var wake time.Time
	later := func(t time.Time) {
		if wake.IsZero() || t.Before(wake) {
			wake = t
		}
	}
	for _, r := range j.ranges {
		for len(r.queue) > 0 && r.inflight < r.slots() {
			if now.Before(r.nextSend) {
				later(r.nextSend)
				break
			}
			items, full := r.take(r.maxOps(j.opts.MaxOperationsPerRequest), j.opts.MaxRequestBytes)
			if len(items) == 0 {
				break // every queued key has a request in flight
			}
			if !full && !j.inputDone && now.Sub(items[0].enq) < j.opts.Linger {
				r.putBack(items)
				later(items[0].enq.Add(j.opts.Linger))
				break
			}
			j.sendBatch(r, items, now)
		}
	}
	return wake
}

// sendBatch starts one request.
func (j *job) sendBatch(r *rangeState, items []*item, now time.Time) {
	size := 2
	for _, it := range items {
		size += len(it.p.enc) + 1
	}
	body := make([]byte, 0, size)
	body = append(body, '[')
	for i, it := range items {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, it.p.enc...)
		it.attempts++
		r.keys[it.p.key]++
	}
	body = append(body, ']')
	r.sent(now, len(items))
	r.inflight++
	j.inflight++
	j.st.requests++
	b := &batch{r: r, items: items, sentAt: now}
	go func() {
		b.rep = j.e.send(j.sendTo, r.id, body, len(items))
		j.done <- b
	}()
}

// splitStatus reports a status an operation (or a whole request) is re-routed and sent again
// after: 410 Gone (sub-status 1002 range gone, 1007 completing split, 1008 completing
// migration; any 410 means the range the request named no longer serves it).
func splitStatus(status int) bool { return status == http.StatusGone }

// complete handles a request's answer.
func (j *job) complete(b *batch) {
	r, now := b.r, time.Now()
	r.inflight--
	j.inflight--
	for _, it := range b.items {
		if r.keys[it.p.key]--; r.keys[it.p.key] <= 0 {
			delete(r.keys, it.p.key)
		}
	}
	rep := b.rep
	throttled := rep.throttles > 0
	retryAfter := rep.retryAfter
	var again []*item
	refresh := false
	if rep.err != nil {
		var ce *cosmoserr.Error
		errors.As(rep.err, &ce)
		status, sub := 0, 0
		if ce != nil {
			status, sub = ce.StatusCode, ce.SubStatus
			retryAfter = max(retryAfter, ce.RetryAfter)
		}
		switch {
		case status == http.StatusTooManyRequests:
			throttled = true
			again = b.items
		case splitStatus(status):
			refresh = true
			again = b.items
		case cosmoserr.IsRetryable(rep.err) && j.ctx.Err() == nil:
			again = b.items
		}
		for _, it := range b.items {
			it.last = rep.err
		}
		if again == nil {
			for _, it := range b.items {
				j.finish(it, Result{StatusCode: status, SubStatus: sub, Err: rep.err})
			}
		}
	} else {
		var charge float64
		charged := 0 // operations that ran: a throttled or not-run one is free and says nothing of the rest's charge
		for i, res := range rep.results {
			it := b.items[i]
			it.charge += res.RequestCharge
			charge += res.RequestCharge
			if res.RequestCharge > 0 {
				charged++
			}
			st := res.StatusCode
			switch {
			case st < 300 || st == http.StatusNotModified:
				j.finish(it, Result{StatusCode: st, ETag: azcore.ETag(res.ETag), Body: res.ResourceBody})
				continue
			case st == http.StatusTooManyRequests:
				throttled = true
				retryAfter = max(retryAfter, time.Duration(res.RetryAfterMilliseconds)*time.Millisecond)
			case splitStatus(st):
				refresh = true
			case st == http.StatusFailedDependency:
				// not run because of an earlier operation's answer
			case st == http.StatusRequestEntityTooLarge && len(b.items) > 1:
				// past the response size limit: not run
			default:
				j.finish(it, Result{StatusCode: st, SubStatus: res.SubStatusCode, Err: j.opError(it, res, rep.activityID)})
				continue
			}
			it.last = j.opError(it, res, rep.activityID)
			again = append(again, it)
		}
		r.observeCharge(now, charge, charged)
		j.st.ran += int64(charged)
		j.st.ranCharge += charge
	}
	if throttled {
		j.st.throttled++
	}
	r.adapt(now, b.sentAt, throttled, retryAfter)
	if refresh {
		j.refresh()
	}
	j.retry(again)
}

// retry queues items again at the front of their ranges, in their order, or reports them when
// they have used their attempts or the job was cancelled.
func (j *job) retry(items []*item) {
	byRange := map[*rangeState][]*item{}
	var order []*rangeState
	for _, it := range items {
		switch {
		case j.stopped:
			j.finish(it, Result{Err: j.ctx.Err()})
			continue
		case it.attempts >= j.opts.MaxAttempts:
			res := Result{Err: it.last}
			var ce *cosmoserr.Error
			if errors.As(it.last, &ce) {
				res.StatusCode, res.SubStatus = ce.StatusCode, ce.SubStatus
			}
			j.finish(it, res)
			continue
		}
		r := j.route(it)
		if byRange[r] == nil {
			order = append(order, r)
		}
		byRange[r] = append(byRange[r], it)
	}
	for _, r := range order {
		r.requeue(byRange[r])
	}
}

// refresh reads the container's ranges again (after a split) and moves queued operations of
// ranges that are gone to their new ranges.
func (j *job) refresh() {
	rmap, err := j.e.readRanges(j.sendTo)
	if err != nil {
		return // keep the old map; the operations come back with 410 until a read succeeds
	}
	j.rmap = rmap
	j.budget = j.e.rangeBudget(j.sendTo, len(rmap))
	live := map[string]bool{}
	for _, pr := range rmap {
		live[pr.ID] = true
	}
	for id, r := range j.ranges {
		if live[id] {
			continue
		}
		queued := r.queue
		r.queue = nil
		if r.inflight == 0 {
			delete(j.ranges, id)
		}
		for _, it := range queued {
			nr := j.route(it)
			nr.queue = append(nr.queue, it)
		}
	}
}

// opError is the *cosmoserr.Error of one operation's answer.
func (j *job) opError(it *item, res wire.BatchResult, activityID string) error {
	return &cosmoserr.Error{
		Operation: opNames[it.op.Kind], Database: j.e.db, Container: j.e.coll, ID: it.p.id,
		StatusCode: res.StatusCode, SubStatus: res.SubStatusCode, ActivityID: activityID,
		RequestCharge: it.charge, Attempts: it.attempts,
		RetryAfter: time.Duration(res.RetryAfterMilliseconds) * time.Millisecond,
	}
}

// finish reports an operation.
func (j *job) finish(it *item, res Result) {
	res.Index, res.Kind, res.PartitionKey, res.Attempts = it.idx, it.op.Kind, it.op.PartitionKey, it.attempts
	res.ID = it.p.id
	if res.ID == "" {
		res.ID = it.op.ID
	}
	res.RequestCharge = it.charge
	j.pending--
	j.st.record(res)
	j.e.metrics.operation(j.ctx, res)
	j.out <- res
}
