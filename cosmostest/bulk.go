package cosmostest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Bulk requests: a non-atomic batch (x-ms-cosmos-batch-atomic: false) to one physical partition,
// as the Java, .NET and JS bulk executors send them in gateway mode (wire/batch.go):
//
//   - the partition key range is named by x-ms-documentdb-partitionkeyrangeid (the bare id, or
//     "collectionRid,id" as Java's PartitionKeyRangeIdentity writes it); a range that was split is
//     410/1002 for the whole request, so the client re-routes every operation;
//   - each operation carries its partition key as JSON text in a string ("partitionKey"); an
//     operation whose key is not in the named range fails alone with 410/1002 (the client's routing
//     is stale; the service's exact answer here is unverified);
//   - operations run in order, each on its own (no transaction): every result is the operation's
//     own status, charge and ETag, and the response is 200 when all succeeded, 207 otherwise;
//   - whole-request refusals as for a transactional batch: a body over 2 MB (413), not a JSON
//     array, empty, or over 100 operations (400); 429/3200 with x-ms-retry-after-ms when the range
//     has no budget left at admission;
//   - with throughput limits, once the range's budget for the current second is spent mid-request
//     (by the operations run so far), that operation and the rest are not run and answer
//     429/3200 each with retryAfterMilliseconds (charge 0); Low priority requests see the budget
//     end earlier (throughput.go's lowPriorityShare);
//   - once the results written so far reach maxBulkResponseBytes the rest are not run and answer
//     413 (the service's response limit; its exact sub-status is unverified, so none is sent);
//   - without x-ms-cosmos-batch-continue-on-error: true, the operations after the first failure
//     are not run and answer 424 (the transactional batch's "failed dependency").
//
// Bodies: a write's result carries the document unless the request says Prefer: return=minimal
// or the operation says minimalReturnPreference; reads always carry it. Charges as ru.go's point
// operations: a failed operation that consulted the store (404, 409, 412) 1 RU, a refused one
// (400, 413) and a throttled one 0. Not supported (the operation fails with a 400 naming
// cosmostest): ifNoneMatch (a conditional read's 304), timeToLiveInSeconds and indexingDirective.
const maxBulkResponseBytes = 4 << 20

const hdrContinueOnError = wire.HeaderBatchContinueOnError

// bulk serves a non-atomic batch request; the batch handler dispatches here.
func (srv *server) bulk(rq *request, c *container) error {
	id := rq.hdr(hdrPKRangeID)
	if id == "" {
		return badRequest("A non-atomic batch request must name its partition key range (%s).", wire.ServiceSpelling(wire.HeaderPKRangeID))
	}
	if i := strings.LastIndexByte(id, ','); i >= 0 {
		id = id[i+1:]
	}
	r := c.rangeByID(id)
	if r == nil {
		return newError(http.StatusGone, subPartitionKeyGone, "The partition key range %s is gone (split or merged).", id)
	}
	ops, err := parseBulk(rq.body)
	if err != nil {
		return err
	}
	rq.PKRangeID = r.id
	if err := srv.admit(rq, c, r); err != nil {
		return err
	}
	lim := srv.bulkLimit(rq, c, r)
	continueOnError := strings.EqualFold(rq.hdr(hdrContinueOnError), "true")
	minimal := preferMinimal(rq)

	results := make([]wire.BatchResult, len(ops))
	var total float64
	size, failed := 0, false
	for i, op := range ops {
		var stop wire.BatchResult
		switch {
		case i > 0 && lim != nil && lim.spent(total):
			stop = wire.BatchResult{StatusCode: http.StatusTooManyRequests, SubStatusCode: subRUBudgetExceeded, RetryAfterMilliseconds: lim.retryAfter(total)}
		case size >= maxBulkResponseBytes:
			stop = wire.BatchResult{StatusCode: http.StatusRequestEntityTooLarge}
		case failed && !continueOnError:
			stop = wire.BatchResult{StatusCode: http.StatusFailedDependency}
		}
		if stop.StatusCode != 0 {
			for j := i; j < len(ops); j++ {
				results[j] = stop
			}
			failed = true
			break
		}
		res := srv.bulkOp(c, r, op, !minimal && !op.MinimalReturnPreference)
		results[i] = res
		total += res.RequestCharge
		size += len(res.ResourceBody) + 96
		failed = failed || res.StatusCode >= 300
	}
	status := http.StatusOK
	if failed {
		status = http.StatusMultiStatus
	}
	rq.charge = roundRU(total)
	rq.session = r.sessionToken()
	rq.reply(status, mustJSON(results))
	return nil
}

// parseBulk decodes a bulk body: a JSON array of 1 to 100 operations, at most 2 MB (413).
func parseBulk(body []byte) ([]wire.BatchOperation, error) {
	if len(body) > wire.MaxRequestBodyBytes {
		return nil, newError(http.StatusRequestEntityTooLarge, subNone, "Request size is too large.")
	}
	var ops []wire.BatchOperation
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&ops); err != nil || dec.More() {
		return nil, badRequest("The batch request body is invalid: it must be a JSON array of operations.")
	}
	if len(ops) == 0 {
		return nil, badRequest("The batch request did not have any operations to be executed.")
	}
	if len(ops) > wire.MaxBatchOperations {
		return nil, badRequest("Batch request has more operations than what is supported. The maximum number of operations in a batch is %d.", wire.MaxBatchOperations)
	}
	return ops, nil
}

// bulkOp runs one operation of a bulk request on range r, on its own: it is applied when it
// succeeds and leaves nothing behind when it fails.
func (srv *server) bulkOp(c *container, r *pkRange, op wire.BatchOperation, withBody bool) wire.BatchResult {
	switch {
	case op.IfNoneMatch != "":
		return failedOp(unsupported("ifNoneMatch on a bulk operation"))
	case op.TimeToLiveInSeconds != nil:
		return failedOp(unsupported("timeToLiveInSeconds on a bulk operation (set ttl in the document)"))
	case op.IndexingDirective != "":
		return failedOp(unsupported("indexingDirective on a bulk operation"))
	}
	pk, err := bulkKey(c, op.PartitionKey)
	if err != nil {
		return failedOp(err)
	}
	if c.rangeFor(pk) != r {
		return failedOp(newError(http.StatusGone, subPartitionKeyGone, "The partition key range %s does not hold the operation's partition key.", r.id))
	}
	tx := newBatchTxn(srv, c, r, pk)
	res, err := tx.run(batchOp{OperationType: op.OperationType, ID: op.ID, IfMatch: op.IfMatch, ResourceBody: op.ResourceBody}, withBody)
	if err != nil {
		tx.rollback()
		return failedOp(err)
	}
	tx.commit()
	return wire.BatchResult{StatusCode: res.StatusCode, RequestCharge: res.RequestCharge, ETag: res.ETag, ResourceBody: res.ResourceBody}
}

// failedOp is the result of an operation that failed with err: charged as a failed point
// operation when it consulted the store (404, 409, 412), free when refused before (400, 413).
func failedOp(err error) wire.BatchResult {
	se := asStatus(err)
	res := wire.BatchResult{StatusCode: se.status, SubStatusCode: se.substatus}
	switch se.status {
	case http.StatusNotFound, http.StatusConflict, http.StatusPreconditionFailed:
		res.RequestCharge = ruFailed
	}
	return res
}

// bulkKey parses an operation's partitionKey: the key's JSON array, as text in a string, read
// and checked as the partition key header is (container.parseKey).
func bulkKey(c *container, s string) ([]any, error) { return c.parseKey(s) }

// bulkLimiter tells when a range's budget for the current second is spent mid-request.
type bulkLimiter struct {
	b      *ruBucket
	budget float64 // the range's RU per second
	limit  float64 // what may be spent before this request's operations are throttled
	srv    *server
}

// bulkLimit is the limiter of a bulk request on r, nil when throughput is not enforced for it.
// Callers hold srv.mu.
func (srv *server) bulkLimit(rq *request, c *container, r *pkRange) *bulkLimiter {
	if !srv.cfg.throughput || rq.direct {
		return nil
	}
	budget := partitionBudget(c)
	if budget <= 0 {
		return nil
	}
	b := srv.tput.bucket(r, srv.now().Unix(), budget)
	return &bulkLimiter{b: b, budget: budget, limit: budget * priorityShare(rq), srv: srv}
}

// spent reports whether the range has no budget left once this request's charges so far are
// counted.
func (l *bulkLimiter) spent(charged float64) bool { return l.b.spent+charged >= l.limit }

// retryAfter is the wait until the range has budget again, charges so far counted.
func (l *bulkLimiter) retryAfter(charged float64) int64 {
	b := *l.b
	b.spent += charged
	return b.retryAfterMs(l.budget, l.srv.now())
}
