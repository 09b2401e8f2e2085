package repository

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// MaxBatchOperations is the most operations one transactional batch may carry.
const MaxBatchOperations = 100

// Tx is a transactional batch in one partition key over the repositories of one container, so a
// customer and its orders change together: all operations apply, or none. Add operations with the
// repositories' CreateIn, UpsertIn, ReplaceIn, PatchIn, ReadIn and DeleteIn, which validate each
// item as the single-item methods do and record the first error; Execute returns it before sending
// anything. Each TxResult.Item is a T of the repository that added the operation: assert it
// (res[i].Item.(Order)). Like guregu/dynamo's WriteTx it spans repositories (entity types); it is
// the only transactional batch of the package (package bulk runs non-atomic bulk writes).
type Tx struct {
	c   *azcosmos.ContainerClient
	pk  azcosmos.PartitionKey
	key PartitionKey // as the caller gave it
	b   azcosmos.TransactionalBatch
	dec []Entity // per operation: the repository that decodes its result (nil for delete)
	err error
	rep *core // the first repository added: its diagnostics span the batch
	// large are the items at or above their repository's LargeItemThreshold, reported with
	// Execute's context.
	large []largeItem
}

// largeItem is a batch item to report to its repository's OnLargeItem.
type largeItem struct {
	c  *core
	li LargeItem
}

// TxResult is the outcome of one operation of a Tx.
type TxResult struct {
	// StatusCode is the operation's HTTP status (201 create, 200 read/replace/upsert/patch,
	// 204 delete).
	StatusCode int
	// ETag is the item's ETag after the operation ("" for delete).
	ETag azcore.ETag
	// Item is the item as stored, a T of the operation's repository (not *T); nil for delete and
	// when Err is set.
	Item any
	// Err is set when the batch committed but this operation's result could not be decoded: it
	// matches cosmoserr.ErrCommittedResult (and the decode failure's sentinel, such as cosmoserr.ErrTypeMismatch). The
	// operation was applied all the same.
	Err error
}

// NewTx starts a transactional batch in partition pk of container c. With a partitionkey.Key, every item
// written must have that key at Options.PartitionKeyPaths (checked before sending); with an
// azcosmos.PartitionKey the service checks it.
func NewTx(c *azcosmos.ContainerClient, pk PartitionKey) *Tx {
	sdk, k, typed, err := resolve(pk)
	tx := &Tx{c: c, pk: sdk, key: pk, b: c.NewTransactionalBatch(sdk)}
	switch {
	case err != nil:
		tx.setError(err)
	case typed && k.Len() == 0:
		tx.setError(invalid(cosmoserr.ErrInvalidPartitionKey, "partitionKey", "has no value: a batch key has 1 to 3 values"))
	}
	return tx
}

func (tx *Tx) setError(err error) {
	if tx.err == nil {
		tx.err = err
	}
}

// Len returns the number of operations added.
func (tx *Tx) Len() int { return len(tx.dec) }

// add checks that one more operation of repository e may join the batch.
func (tx *Tx) add(e Entity) bool {
	c := e.entity()
	if tx.rep == nil {
		tx.rep = c
	}
	switch {
	case tx.err != nil:
		return false
	case c.c != tx.c:
		tx.setError(invalid(cosmoserr.ErrValidation, "batch", "repository "+c.typeName+" uses another container client"))
		return false
	case len(tx.dec) == MaxBatchOperations:
		tx.setError(invalid(cosmoserr.ErrValidation, "batch", fmt.Sprintf("more than %d operations", MaxBatchOperations)))
		return false
	}
	if _, _, err := c.checkKey(tx.key, false); err != nil {
		tx.setError(err)
		return false
	}
	return true
}

// txBody validates and encodes an item joining tx.
func (r *Repository[T]) txBody(tx *Tx, item T) (string, []byte, bool) {
	if !tx.add(r) {
		return "", nil, false
	}
	id, pk := r.key(item)
	if _, err := r.checkPoint(pk, id); err != nil {
		tx.setError(err)
		return "", nil, false
	}
	// With PartitionKeyPaths and a partitionkey.Key for the batch, the item's own key must be the batch's.
	e, large, err := r.encode(item, id, tx.key)
	if err != nil {
		tx.setError(err)
		return "", nil, false
	}
	if large != nil {
		tx.large = append(tx.large, largeItem{c: &r.core, li: *large})
	}
	body := append([]byte(nil), e.b...)
	e.release()
	return id, body, true
}

func itemOpts(opts []WriteOption) *azcosmos.TransactionalBatchItemOptions {
	o := applyWriteOptions(opts)
	if o.ifMatch == nil {
		return nil
	}
	return &azcosmos.TransactionalBatchItemOptions{IfMatchETag: o.ifMatch}
}

// CreateIn adds a create of item to tx: the batch fails with cosmoserr.ErrConflict if the id exists.
func (r *Repository[T]) CreateIn(tx *Tx, item T) *Tx {
	if _, body, ok := r.txBody(tx, item); ok {
		tx.b.CreateItem(body, nil)
		tx.dec = append(tx.dec, r)
	}
	return tx
}

// UpsertIn adds an upsert of item to tx, conditional with IfMatch.
func (r *Repository[T]) UpsertIn(tx *Tx, item T, opts ...WriteOption) *Tx {
	if _, body, ok := r.txBody(tx, item); ok {
		tx.b.UpsertItem(body, itemOpts(opts))
		tx.dec = append(tx.dec, r)
	}
	return tx
}

// ReplaceIn adds a replace of item to tx, conditional with IfMatch.
func (r *Repository[T]) ReplaceIn(tx *Tx, item T, opts ...WriteOption) *Tx {
	if id, body, ok := r.txBody(tx, item); ok {
		tx.b.ReplaceItem(id, body, itemOpts(opts))
		tx.dec = append(tx.dec, r)
	}
	return tx
}

// ReadIn adds a read of id to tx.
func (r *Repository[T]) ReadIn(tx *Tx, id string) *Tx {
	if err := validateID(id); err != nil {
		tx.setError(err)
	} else if tx.add(r) {
		tx.b.ReadItem(id, nil)
		tx.dec = append(tx.dec, r)
	}
	return tx
}

// DeleteIn adds a delete of id to tx, conditional with IfMatch. A batch cannot read before it
// deletes, so unlike Repository.Delete it does not check the document's type: pass IfMatch with
// an ETag from Get (or add a ReadIn first and check its result) to be sure.
func (r *Repository[T]) DeleteIn(tx *Tx, id string, opts ...WriteOption) *Tx {
	if err := validateID(id); err != nil {
		tx.setError(err)
	} else if tx.add(r) {
		tx.b.DeleteItem(id, itemOpts(opts))
		tx.dec = append(tx.dec, nil)
	}
	return tx
}

// PatchIn adds a patch of id to tx, with the type and version guard of Repository.Patch.
func (r *Repository[T]) PatchIn(tx *Tx, id string, p *Patch, opts ...WriteOption) *Tx {
	switch {
	case validateID(id) != nil:
		tx.setError(validateID(id))
	case p == nil || p.n == 0:
		tx.setError(invalid(cosmoserr.ErrInvalidPatch, "patch", "has no operations"))
	case p.err != nil:
		tx.setError(p.err)
	case tx.add(r):
		tx.b.PatchItem(id, r.patchOps(p), itemOpts(opts))
		tx.dec = append(tx.dec, r)
	}
	return tx
}

// Execute runs the batch. An error means nothing was committed: the batch was refused before
// anything was sent (a *cosmoserr.ValidationError), the service rolled it back because one operation failed
// (a *BatchError naming it, matching the sentinel of its status: cosmoserr.ErrConflict, cosmoserr.ErrNotFound,
// cosmoserr.ErrPreconditionFailed, ...), or the request as a whole failed (an *OpError). The one exception is
// an error with no status at all (a timeout or dropped connection, cosmoserr.IsTimeout or a
// *cosmoserr.Error with StatusCode 0): then no answer came back and the outcome is unknown, as for
// any write.
//
// Once the batch committed, Execute returns no error. Results are in the order the operations were
// added, each item decoded by its repository (type and version checked); an operation whose result
// cannot be decoded, or every operation when the SDK could not read the response, has
// TxResult.Err set, matching cosmoserr.ErrCommittedResult.
func (tx *Tx) Execute(ctx context.Context) (_ []TxResult, err error) {
	if tx.rep != nil {
		var end func(error)
		ctx, end = tx.rep.start(ctx, "repository.Batch")
		defer func() { end(err) }()
	}
	if tx.err != nil {
		return nil, tx.err
	}
	if len(tx.dec) == 0 {
		return nil, invalid(cosmoserr.ErrValidation, "batch", "has no operations")
	}
	for _, l := range tx.large {
		l.c.reportLarge(ctx, l.li)
	}
	first := tx.dec[0]
	for _, e := range tx.dec {
		if e != nil {
			first = e
			break
		}
	}
	typ := ""
	if first != nil {
		typ = first.Type()
	}
	resp, err := tx.c.ExecuteTransactionalBatch(ctx, tx.b, &azcosmos.TransactionalBatchOptions{EnableContentResponseOnWrite: true})
	if err != nil {
		if raw := resp.RawResponse; raw != nil && raw.StatusCode < 300 {
			// The service committed the batch but the SDK could not parse its results.
			out := make([]TxResult, len(tx.dec))
			for i := range out {
				out[i] = TxResult{StatusCode: raw.StatusCode, Err: &CommittedResultError{Index: i, Type: tx.typeAt(i), Err: err}}
			}
			return out, nil
		}
		return nil, &OpError{Op: cosmoserr.OpExecuteBatch, Type: typ, Err: cosmoserr.FromError(cosmoserr.OpExecuteBatch, err)}
	}
	if !resp.Success {
		return nil, tx.batchError(resp, typ)
	}
	out := make([]TxResult, len(resp.OperationResults))
	for i, res := range resp.OperationResults {
		out[i] = TxResult{StatusCode: int(res.StatusCode), ETag: res.ETag}
		if len(res.ResourceBody) > 0 && i < len(tx.dec) && tx.dec[i] != nil {
			item, err := tx.dec[i].decodeAny(res.ResourceBody)
			if err != nil {
				out[i].Err = &CommittedResultError{Index: i, Type: tx.typeAt(i), Err: err}
				continue
			}
			out[i].Item = item
		}
	}
	return out, nil
}

// batchError is the error of a rolled-back batch: the first operation whose status is not 424
// (failed dependency) caused it.
func (tx *Tx) batchError(resp azcosmos.TransactionalBatchResponse, typ string) error {
	be := &BatchError{Index: -1, StatusCode: http.StatusMultiStatus, Type: typ,
		ActivityID: resp.ActivityID, RequestCharge: float64(resp.RequestCharge)}
	if raw := resp.RawResponse; raw != nil {
		be.SubStatus = wire.SubStatus(raw.Header)
	}
	for i, res := range resp.OperationResults {
		if res.StatusCode != http.StatusFailedDependency && res.StatusCode >= 300 {
			be.Index, be.StatusCode, be.Type = i, int(res.StatusCode), tx.typeAt(i)
			be.SubStatus = opSubStatus(resp.RawResponse, i)
			break
		}
	}
	be.err = &cosmoserr.Error{Operation: cosmoserr.OpExecuteBatch, StatusCode: be.StatusCode, SubStatus: be.SubStatus,
		ActivityID: be.ActivityID, RequestCharge: be.RequestCharge, Diagnostics: resp.Diagnostics}
	return be
}

// opSubStatus reads the subStatusCode of operation i from a batch response's JSON (the SDK's
// TransactionalBatchResult has none); 0 if absent.
func opSubStatus(raw *http.Response, i int) int {
	if raw == nil {
		return 0
	}
	body, err := runtime.Payload(raw)
	if err != nil {
		return 0
	}
	var ops []struct {
		SubStatus int `json:"subStatusCode"`
	}
	if json.Unmarshal(body, &ops) != nil || i >= len(ops) {
		return 0
	}
	return ops[i].SubStatus
}

func (tx *Tx) typeAt(i int) string {
	if i < len(tx.dec) && tx.dec[i] != nil {
		return tx.dec[i].Type()
	}
	return ""
}

// BatchError is a transactional batch that was rolled back because one operation failed: nothing
// was applied. Like every error of a call the service answered, it carries the activity id, status,
// sub-status and request charge, and unwraps to a *cosmoserr.Error with the same values.
type BatchError struct {
	// Index is the failing operation's position, -1 if the response named none.
	Index int
	// StatusCode is the failing operation's status.
	StatusCode int
	// SubStatus is the failing operation's sub-status (0 when the service gave none).
	SubStatus int
	// Type is the type discriminator of the failing operation's repository.
	Type string
	// ActivityID is the batch's x-ms-activity-id, the id Azure support asks for.
	ActivityID string
	// RequestCharge is the request units the batch consumed.
	RequestCharge float64

	err *cosmoserr.Error
}

// Error returns "repository: batch rolled back: operation <i> (<type>) failed with <status>
// (sub-status, activity id, RU)".
func (e *BatchError) Error() string {
	return fmt.Sprintf("repository: batch rolled back: operation %d (%s) failed with %d %s (sub-status %d, activity id %s, %s RU)",
		e.Index, e.Type, e.StatusCode, http.StatusText(e.StatusCode), e.SubStatus, e.ActivityID,
		strconv.FormatFloat(e.RequestCharge, 'f', -1, 64))
}

// Unwrap returns the *cosmoserr.Error of the failing operation (nil for a BatchError built by
// hand).
func (e *BatchError) Unwrap() error {
	if e.err == nil {
		return nil
	}
	return e.err
}

// CommittedResultError is the per-operation error of a batch that committed but whose result for
// that operation could not be decoded (TxResult.Err). It matches cosmoserr.ErrCommittedResult and unwraps to
// the decode failure.
type CommittedResultError struct {
	// Index is the operation's position in the batch.
	Index int
	// Type is the type discriminator of the operation's repository ("" for a delete).
	Type string
	// Err is the decode failure.
	Err error
}

// Error returns "repository: batch committed, but the result of operation <i> (<type>) cannot be
// read: <cause>".
func (e *CommittedResultError) Error() string {
	return fmt.Sprintf("repository: batch committed, but the result of operation %d (%s) cannot be read: %v", e.Index, e.Type, e.Err)
}

// Is matches cosmoserr.ErrCommittedResult.
func (e *CommittedResultError) Is(target error) bool { return target == cosmoserr.ErrCommittedResult }

// Unwrap returns the decode failure.
func (e *CommittedResultError) Unwrap() error { return e.Err }

// Is matches the sentinel of the failing operation's status and sub-status, by the rule every
// cosmoskit error follows (cosmoserr.Sentinel).
func (e *BatchError) Is(target error) bool {
	s := cosmoserr.Sentinel(e.StatusCode, e.SubStatus)
	return s != nil && s == target
}
