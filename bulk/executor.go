package bulk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/internal/clientaccess"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
	"github.com/cosmoskit/cosmoskit-go/throughput"
)

// Executor runs bulk jobs against one container. It is safe for concurrent use (each Execute is
// its own job) and holds no connection of its own: requests go through the cosmoskit Client's
// pipeline (its credential, transport, region routing, breakers, retry and diagnostics). A job
// whose context carries a throughput group (throughput.WithGroup) spends from that group's
// budget, with its priority and bucket headers: the executor's pipeline enforces groups itself.
type Executor struct {
	client   *cosmoskit.Client
	db, coll string
	cc       clientaccess.Container
	opts     Options
	metrics  *metrics
}

// New returns an Executor for container in database, sending with client's credential and
// policies. It does no I/O.
//
// Errors: a *cosmoserr.ValidationError (cosmoserr.ErrValidation) for a nil client, an empty id or
// an option out of range; cosmoserr.ErrNoCredential for a client made by cosmoskit.NewFromClient
// (bulk requests are not an azcosmos API, so they are signed with the client's credential);
// cosmoserr.ErrClosed for a closed client.
func New(client *cosmoskit.Client, database, container string, o Options) (*Executor, error) {
	switch {
	case client == nil:
		return nil, &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "client", Reason: "is nil"}
	case database == "":
		return nil, &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "database", Reason: "is required"}
	case container == "":
		return nil, &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "container", Reason: "is required"}
	}
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	a, err := clientaccess.Of(client)
	if err != nil {
		return nil, err
	}
	if a.Auth == nil {
		return nil, cosmoserr.ErrNoCredential
	}
	m, err := newMetrics(o.MeterProvider)
	if err != nil {
		return nil, err
	}
	return &Executor{
		client: client,
		db:     database, coll: container, opts: o, metrics: m,
		cc: clientaccess.NewContainer(a, "cosmoskit/bulk", database, container, attemptPolicy{}, throughput.Policy()),
	}, nil
}

// Options returns the options in effect.
func (e *Executor) Options() Options { return e.opts }

// FromChannel returns the operations received from ch until it is closed, for Execute.
func FromChannel(ch <-chan Operation) iter.Seq[Operation] {
	return func(yield func(Operation) bool) {
		for op := range ch {
			if !yield(op) {
				return
			}
		}
	}
}

// Execute runs the operations of ops and yields one result per operation read, in the order
// they complete, with its error (nil on success; the same as Result.Err). It reads the container's
// partition key definition and ranges first; when that fails it yields one result with Index -1
// and that error, and reads no operation.
//
// Operations are checked before anything is sent (a missing id or key, a key that does not match
// the document, a document over 2 MB, a malformed patch: each its own result with a
// *cosmoserr.ValidationError), grouped by physical partition and packed into bulk requests (at
// most Options.MaxOperationsPerRequest operations and Options.MaxRequestBytes of JSON each). Each
// partition has its own adaptive window of requests in flight and, once the service throttled
// it, its own request-unit rate, both cut on a throttle and grown while none comes (AIMD).
// Throttled operations, operations of a partition that split, and operations not run because of
// an earlier one's answer are sent again (at most Options.MaxAttempts times each); every other
// answer is the operation's result. Operations on one logical partition (the same partition key)
// are applied in the order of the input.
//
// Cancelling ctx (or stopping the iteration) stops dispatch: requests in flight complete and
// report their operations; operations read but not sent are reported with the context's error;
// the rest of ops is not read. A channel behind ops (FromChannel) must still be closed by its
// producer for its reading goroutine to end.
func (e *Executor) Execute(ctx context.Context, ops iter.Seq[Operation]) iter.Seq2[Result, error] {
	return func(yield func(Result, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		j, err := e.start(ctx, ops)
		if err != nil {
			yield(Result{Index: -1, Err: err}, err)
			return
		}
		for r := range j.out {
			if !yield(r, r.Err) {
				cancel()
				for range j.out { //nolint:revive // drain: the job reports what was in flight
				}
				return
			}
		}
	}
}

// rangeBudget is the container's provisioned RU/s (manual, or the autoscale maximum) divided
// among n physical partitions, as the service divides it; 0 when it cannot be read (a container
// sharing its database's throughput, a credential that may not read offers).
func (e *Executor) rangeBudget(ctx context.Context, n int) float64 {
	cc, err := e.client.Container(e.db, e.coll)
	if err != nil || n == 0 {
		return 0
	}
	resp, err := cc.ReadThroughput(ctx, nil)
	if err != nil || resp.ThroughputProperties == nil {
		return 0
	}
	ru, ok := resp.ThroughputProperties.ManualThroughput()
	if !ok {
		ru, _ = resp.ThroughputProperties.AutoscaleMaxThroughput()
	}
	return float64(ru) / float64(n)
}

// attemptLog counts the whole-request 429s the client's retry policy absorbed for one request.
type attemptLog struct {
	throttles  atomic.Int32
	retryAfter atomic.Int64 // nanoseconds, the largest hint seen
}

type attemptKey struct{}

// attemptPolicy records each attempt's 429 in the request's attemptLog; it runs per retry, after
// the client's retry policy, so it sees the throttles that policy retries.
type attemptPolicy struct{}

func (attemptPolicy) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		if l, ok := req.Raw().Context().Value(attemptKey{}).(*attemptLog); ok {
			l.throttles.Add(1)
			if d := wire.RetryAfter(resp.Header, time.Now); int64(d) > l.retryAfter.Load() {
				l.retryAfter.Store(int64(d))
			}
		}
	}
	return resp, err
}

// reply is the outcome of one bulk request.
type reply struct {
	results    []wire.BatchResult
	charge     float64
	activityID string
	throttles  int           // whole-request 429s, retried by the client's policy or final
	retryAfter time.Duration // the largest retry hint of those
	err        error         // a *cosmoserr.Error when the request as a whole failed
}

// send posts one bulk request of n operations (body) to range rangeID.
// rep is a named result: the deferred function adds the throttles the client's retry policy
// absorbed to the reply returned (with an unnamed result they were added to a copy and lost, so
// a partition never slowed down for whole-request 429s and Progress showed none).
func (e *Executor) send(ctx context.Context, rangeID string, body []byte, n int) (rep reply) {
	log := &attemptLog{}
	ctx = context.WithValue(ctx, attemptKey{}, log)
	defer func() {
		rep.throttles += int(log.throttles.Load())
		rep.retryAfter = max(rep.retryAfter, time.Duration(log.retryAfter.Load()))
	}()
	req, err := e.cc.NewRequest(ctx, http.MethodPost, "/docs", clientaccess.Resource{Type: "docs", Link: e.cc.Link()}, nil)
	if err != nil {
		rep.err = cosmoserr.FromError(cosmoserr.OpExecuteBatch, err)
		return rep
	}
	h := req.Raw().Header
	h.Set(wire.HeaderIsBatch, "True")
	h.Set(wire.HeaderBatchAtomic, "False")
	h.Set(wire.HeaderBatchContinueOnError, "True")
	h.Set(wire.HeaderPKRangeID, rangeID)
	if !e.opts.ContentResponseOnWrite {
		h.Set(wire.HeaderPrefer, "return=minimal")
	}
	if err := req.SetBody(streaming.NopCloser(bytes.NewReader(body)), "application/json"); err != nil {
		rep.err = cosmoserr.FromError(cosmoserr.OpExecuteBatch, err)
		return rep
	}
	resp, err := e.cc.Do(req)
	if err != nil {
		rep.err = cosmoserr.FromError(cosmoserr.OpExecuteBatch, err)
		return rep
	}
	rep.charge = wire.RequestCharge(resp.Header)
	rep.activityID = resp.Header.Get(wire.HeaderActivityID)
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusMultiStatus {
		rep.err = cosmoserr.FromError(cosmoserr.OpExecuteBatch, runtime.NewResponseError(resp))
		drain(resp)
		return rep
	}
	b, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err == nil {
		err = json.Unmarshal(b, &rep.results)
	}
	if err == nil && len(rep.results) != n {
		err = errors.New("the response has a result count other than the request's operation count")
	}
	if err != nil {
		rep.results = nil
		rep.err = &cosmoserr.Error{Operation: cosmoserr.OpExecuteBatch, Database: e.db, Container: e.coll,
			StatusCode: http.StatusInternalServerError, ActivityID: rep.activityID, Message: "invalid bulk response", Err: err}
	}
	return rep
}
