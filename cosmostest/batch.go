package cosmostest

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// maxBatchOps is the service's limit on operations in one transactional batch.
const maxBatchOps = 100

// hdrBatchAtomic says whether a batch is transactional; the Go SDK always sends True.
const hdrBatchAtomic = wire.HeaderBatchAtomic

// batchOp is one element of a transactional batch body (rest_protocol §10).
type batchOp struct {
	OperationType string          `json:"operationType"`
	ID            string          `json:"id"`
	IfMatch       string          `json:"ifMatch"`
	ResourceBody  json.RawMessage `json:"resourceBody"`
}

// batchResult is one element of a batch response. resourceBody and eTag are omitted when empty:
// the SDK tells "no body" by the key being absent.
type batchResult struct {
	StatusCode    int             `json:"statusCode"`
	SubStatusCode int             `json:"subStatusCode,omitempty"`
	RequestCharge float64         `json:"requestCharge"`
	ETag          string          `json:"eTag,omitempty"`
	ResourceBody  json.RawMessage `json:"resourceBody,omitempty"`
}

// batch serves a transactional batch: every operation runs in order against a copy of the
// logical partition's physical range; if all succeed the copy's changes are committed at once
// (HTTP 200), otherwise nothing is applied and the answer is 207 with the failing operation's
// own status and 424 Failed Dependency for every other operation.
//
// Whole-request errors use the normal error path: a missing or malformed partition key header
// (400), a body that is not a JSON array of operations (400), an empty batch or more than 100
// operations (400), a body over 2 MB (413). An operation whose document is not in the batch's
// partition key fails that operation with 400/1001, as the service does.
//
// Charges: each operation is charged as the point operation it stands for (ru.go); a failed
// operation and each 424 are charged ruFailed. The response's x-ms-request-charge is their sum.
func (srv *server) batch(rq *request, c *container) error {
	if strings.EqualFold(rq.hdr(hdrBatchAtomic), "false") {
		return srv.bulk(rq, c) // bulk.go
	}
	pk, err := c.pointKey(rq)
	if err != nil {
		return err
	}
	ops, err := parseBatch(rq.body)
	if err != nil {
		return err
	}
	r := c.rangeFor(pk)
	rq.PKRangeID = r.id
	if err := srv.admit(rq, c, r); err != nil {
		return err
	}

	tx := newBatchTxn(srv, c, r, pk)
	withBodies := !preferMinimal(rq)
	results := make([]batchResult, len(ops))
	failed := -1
	for i, op := range ops {
		res, err := tx.run(op, withBodies)
		if err != nil {
			se := asStatus(err)
			results[i] = batchResult{StatusCode: se.status, SubStatusCode: se.substatus, RequestCharge: ruFailed}
			failed = i
			break
		}
		results[i] = res
	}

	total := 0.0
	status := http.StatusOK
	if failed >= 0 {
		tx.rollback()
		status = http.StatusMultiStatus
		for i := range results {
			if i != failed {
				results[i] = batchResult{StatusCode: http.StatusFailedDependency, RequestCharge: ruFailed}
			}
		}
	} else {
		tx.commit()
	}
	for _, res := range results {
		total += res.RequestCharge
	}
	rq.charge = roundRU(total)
	rq.session = r.sessionToken()
	rq.reply(status, mustJSON(results))
	return nil
}

// batchTxn is a batch in progress: its operations run against work, a copy of the range's
// state that the store helpers (lookup, checkUnique, put) use unchanged, with its own LSN
// counter continuing the range's, so LSNs are issued in operation order. The copy holds only
// the keys the batch has looked at (copied from the range on first use), unless the container
// has unique keys, whose check reads the whole logical partition: then it is a full copy.
type batchTxn struct {
	srv     *server
	c       *container
	r       *pkRange // the range, untouched until commit
	work    *pkRange
	pk      []any
	full    bool            // work.items is a full copy of r.items
	keys    map[string]bool // keys of r looked at or changed
	nextDoc uint64          // c.nextDoc before the batch, restored by rollback
}

func newBatchTxn(srv *server, c *container, r *pkRange, pk []any) *batchTxn {
	ukp, _ := c.props["uniqueKeyPolicy"].(map[string]any)
	keys, _ := ukp["uniqueKeys"].([]any)
	tx := &batchTxn{srv: srv, c: c, r: r, pk: pk, full: len(keys) > 0, keys: map[string]bool{}, nextDoc: c.root().nextDoc}
	items := map[string]*item{}
	if tx.full {
		items = maps.Clone(r.items)
	}
	tx.work = &pkRange{id: r.id, min: r.min, max: r.max, parents: r.parents, lsn: r.lsn, ts: r.ts, items: items,
		progress: slices.Clone(r.progress), staged: &[]logEntry{}}
	return tx
}

// lookup is the live item under key as the batch sees it so far.
func (tx *batchTxn) lookup(key string) *item {
	if !tx.keys[key] {
		tx.keys[key] = true
		if it, ok := tx.r.items[key]; ok && !tx.full {
			tx.work.items[key] = it
		}
	}
	return tx.srv.lookup(tx.c, tx.work, key)
}

// commit applies every change to the range at once.
func (tx *batchTxn) commit() {
	for key := range tx.keys {
		if it, ok := tx.work.items[key]; ok {
			tx.r.items[key] = it
		} else {
			delete(tx.r.items, key)
		}
	}
	for _, e := range *tx.work.staged {
		tx.srv.countWrite(tx.c, e.pk, e.id)
	}
	tx.r.lsn = tx.work.lsn
	tx.r.progress = tx.work.progress
	if tx.r.copy != nil {
		for _, e := range *tx.work.staged {
			tx.srv.commitEntry(tx.r, e)
		}
	}
}

// rollback forgets the batch: the range was never changed; document sequence numbers go back.
func (tx *batchTxn) rollback() { tx.c.root().nextDoc = tx.nextDoc }

// parseBatch decodes a batch body: a JSON array of 1 to 100 operations, at most 2 MB (413).
func parseBatch(body []byte) ([]batchOp, error) {
	if len(body) > maxItemBytes {
		return nil, newError(http.StatusRequestEntityTooLarge, subNone, "Request size is too large.")
	}
	var ops []batchOp
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&ops); err != nil || dec.More() {
		return nil, badRequest("The batch request body is invalid: it must be a JSON array of operations.")
	}
	if len(ops) == 0 {
		return nil, badRequest("The batch request did not have any operations to be executed.")
	}
	if len(ops) > maxBatchOps {
		return nil, badRequest("Batch request has more operations than what is supported. The maximum number of operations in a batch is %d.", maxBatchOps)
	}
	return ops, nil
}

// run runs one operation against the batch's working copy. It returns the operation's result,
// or a *statusError for a failed operation.
func (tx *batchTxn) run(op batchOp, withBodies bool) (batchResult, error) {
	srv, c, w, pk := tx.srv, tx.c, tx.work, tx.pk
	switch op.OperationType {
	case "Create", "Upsert", "Replace":
		doc, id, err := parseDocument(op.ResourceBody)
		if err != nil {
			return batchResult{}, err
		}
		if op.OperationType == "Replace" && id != op.ID {
			return batchResult{}, badRequest("The id in the document %q does not match the id of the Replace operation %q.", id, op.ID)
		}
		if !samePK(c.pk.values(doc), pk) {
			return batchResult{}, newError(http.StatusBadRequest, subPartitionKeyMismatch, "PartitionKey extracted from document doesn't match the one specified in the header. Learn more: https://aka.ms/CosmosDB/sql/errors/wrong-pk-value")
		}
		if err := validateTTL(c, doc); err != nil {
			return batchResult{}, err
		}
		key := itemKey(pk, id)
		old := tx.lookup(key)
		switch {
		case op.OperationType == "Create" && old != nil:
			return batchResult{}, conflict()
		case op.OperationType == "Replace" && old == nil:
			return batchResult{}, notFoundItem()
		case op.OperationType != "Create" && op.IfMatch != "" && old == nil:
			return batchResult{}, notFoundItem()
		case op.OperationType != "Create" && op.IfMatch != "" && old.etag != op.IfMatch:
			return batchResult{}, preconditionFailed()
		}
		if err := srv.checkUnique(c, w, pk, id, doc); err != nil {
			return batchResult{}, err
		}
		it := srv.put(c, w, pk, id, doc, userBytes(op.ResourceBody, doc), old)
		status := http.StatusCreated
		if old != nil {
			status = http.StatusOK
		}
		return itemResult(status, ruUpsert(c, it, old != nil), it, withBodies), nil

	case "Read", "Delete", "Patch":
		if op.ID == "" {
			return batchResult{}, badRequest("The %s operation requires an id.", op.OperationType)
		}
		if err := validateItemID(op.ID); err != nil {
			return batchResult{}, err
		}
		key := itemKey(pk, op.ID)
		old := tx.lookup(key)
		if old == nil {
			return batchResult{}, notFoundItem()
		}
		if op.OperationType != "Read" && op.IfMatch != "" && old.etag != op.IfMatch {
			return batchResult{}, preconditionFailed()
		}
		switch op.OperationType {
		case "Read":
			return itemResult(http.StatusOK, ruRead(old.size), old, true), nil
		case "Delete":
			delete(w.items, key)
			w.nextLSN()
			srv.logWrite(w, key, pk, op.ID, nil, old.etag)
			return batchResult{StatusCode: http.StatusNoContent, RequestCharge: ruWrite(c, old)}, nil
		}
		return tx.patch(op, old, withBodies)
	}
	return batchResult{}, badRequest("Invalid batch operation type %q: expected Create, Upsert, Replace, Delete, Read or Patch.", op.OperationType)
}

// patch applies a Patch operation (its resourceBody is a patch document, §5) to old.
func (tx *batchTxn) patch(op batchOp, old *item, withBodies bool) (batchResult, error) {
	srv, c, w, pk := tx.srv, tx.c, tx.work, tx.pk
	pb, err := parsePatch(op.ResourceBody, c)
	if err != nil {
		return batchResult{}, err
	}
	if pb.Condition != "" {
		ok, err := engine.match(pb.Condition, old.doc)
		if err != nil {
			return batchResult{}, err
		}
		if !ok {
			return batchResult{}, preconditionFailed()
		}
	}
	doc, err := patchedDoc(old, pb)
	if err != nil {
		return batchResult{}, err
	}
	if tooLarge(doc) {
		return batchResult{}, newError(http.StatusRequestEntityTooLarge, subNone, "Request size is too large.")
	}
	if err := validateTTL(c, doc); err != nil {
		return batchResult{}, err
	}
	if err := srv.checkUnique(c, w, pk, op.ID, doc); err != nil {
		return batchResult{}, err
	}
	it := srv.put(c, w, pk, op.ID, doc, patchedBytes(old, doc, pb), old)
	return itemResult(http.StatusOK, ruPatch(c, it, len(pb.Operations)), it, withBodies), nil
}

func itemResult(status int, charge float64, it *item, withBody bool) batchResult {
	res := batchResult{StatusCode: status, RequestCharge: charge, ETag: it.etag}
	if withBody {
		res.ResourceBody = it.body()
	}
	return res
}
