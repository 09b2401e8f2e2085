package repository

import (
	"context"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
)

// MaxBatchOperations is the most operations one transactional batch may carry.
const MaxBatchOperations = 100

// Batch is a transactional batch of operations on items of one repository in one partition: all
// of them apply, or none. Build it with Repository.NewBatch; builder methods validate each item
// (as the single-item methods do) and record the first error, which Execute returns before sending
// anything.
type Batch[T any] struct {
	r   *Repository[T]
	pk  azcosmos.PartitionKey
	b   azcosmos.TransactionalBatch
	n   int
	err error
}

// BatchResult is the outcome of one batch operation.
type BatchResult[T any] struct {
	// StatusCode is the operation's HTTP status (201 create, 200 read/replace/upsert/patch,
	// 204 delete).
	StatusCode int
	// ETag is the item's ETag after the operation ("" for delete).
	ETag azcore.ETag
	// Item is the item as stored (read, written or patched); zero for delete.
	Item T
}

// NewBatch starts a transactional batch in partition pk.
func (r *Repository[T]) NewBatch(pk azcosmos.PartitionKey) *Batch[T] {
	b := &Batch[T]{r: r, pk: pk, b: r.c.NewTransactionalBatch(pk)}
	if err := r.checkKey(pk, false); err != nil {
		b.err = err
	}
	return b
}

func (b *Batch[T]) setError(err error) {
	if b.err == nil {
		b.err = err
	}
}

func (b *Batch[T]) count() bool {
	if b.n == MaxBatchOperations {
		b.setError(invalid(ErrValidation, "batch", fmt.Sprintf("more than %d operations", MaxBatchOperations)))
		return false
	}
	b.n++
	return true
}

// body validates and encodes an item of the batch.
func (b *Batch[T]) body(item T) (string, []byte, bool) {
	id, pk := b.r.key(item)
	if err := b.r.checkPoint(pk, id); err != nil {
		b.setError(err)
		return "", nil, false
	}
	if !keyEqual(pk, b.pk) {
		b.setError(invalid(ErrInvalidPartitionKey, "partitionKey", "item "+fmt.Sprintf("%q", id)+" is not in the batch's partition"))
		return "", nil, false
	}
	e, err := b.r.encodeFor(context.Background(), item, id)
	if err != nil {
		b.setError(err)
		return "", nil, false
	}
	body := append([]byte(nil), e.b...)
	e.release()
	return id, body, b.count()
}

func itemOpts(opts []WriteOption) *azcosmos.TransactionalBatchItemOptions {
	o := applyWriteOptions(opts)
	if o.ifMatch == nil {
		return nil
	}
	return &azcosmos.TransactionalBatchItemOptions{IfMatchETag: o.ifMatch}
}

// Create adds a create: the batch fails with ErrConflict if the id exists.
func (b *Batch[T]) Create(item T) *Batch[T] {
	if _, body, ok := b.body(item); ok {
		b.b.CreateItem(body, nil)
	}
	return b
}

// Upsert adds an upsert, conditional with IfMatch.
func (b *Batch[T]) Upsert(item T, opts ...WriteOption) *Batch[T] {
	if _, body, ok := b.body(item); ok {
		b.b.UpsertItem(body, itemOpts(opts))
	}
	return b
}

// Replace adds a replace, conditional with IfMatch.
func (b *Batch[T]) Replace(item T, opts ...WriteOption) *Batch[T] {
	if id, body, ok := b.body(item); ok {
		b.b.ReplaceItem(id, body, itemOpts(opts))
	}
	return b
}

// Read adds a read of id.
func (b *Batch[T]) Read(id string) *Batch[T] {
	if err := validateID(id); err != nil {
		b.setError(err)
	} else if b.count() {
		b.b.ReadItem(id, nil)
	}
	return b
}

// Delete adds a delete of id, conditional with IfMatch.
func (b *Batch[T]) Delete(id string, opts ...WriteOption) *Batch[T] {
	if err := validateID(id); err != nil {
		b.setError(err)
	} else if b.count() {
		b.b.DeleteItem(id, itemOpts(opts))
	}
	return b
}

// Patch adds a patch of id (see Repository.Patch for the guard it carries).
func (b *Batch[T]) Patch(id string, p *Patch, opts ...WriteOption) *Batch[T] {
	switch {
	case validateID(id) != nil:
		b.setError(validateID(id))
	case p == nil || p.n == 0:
		b.setError(invalid(ErrInvalidPatch, "patch", "has no operations"))
	case p.err != nil:
		b.setError(p.err)
	case b.count():
		b.b.PatchItem(id, b.r.patchOps(p), itemOpts(opts))
	}
	return b
}

// Len returns the number of operations added.
func (b *Batch[T]) Len() int { return b.n }

// Execute runs the batch. If any operation fails nothing is applied, and the error is a
// *BatchError naming the failing operation, matching the sentinel of its status (ErrConflict,
// ErrNotFound, ErrPreconditionFailed, ...). Results are in the order the operations were added.
func (b *Batch[T]) Execute(ctx context.Context) ([]BatchResult[T], error) {
	if b.err != nil {
		return nil, b.err
	}
	if b.n == 0 {
		return nil, invalid(ErrValidation, "batch", "has no operations")
	}
	resp, err := b.r.c.ExecuteTransactionalBatch(ctx, b.b, &azcosmos.TransactionalBatchOptions{EnableContentResponseOnWrite: true})
	if err != nil {
		return nil, b.r.opError(diagnostics.OpExecuteBatch, "", err)
	}
	if !resp.Success {
		for i, res := range resp.OperationResults {
			if res.StatusCode != http.StatusFailedDependency && res.StatusCode >= 300 {
				return nil, &BatchError{Index: i, StatusCode: int(res.StatusCode), Type: b.r.typeName}
			}
		}
		return nil, &BatchError{Index: -1, StatusCode: http.StatusMultiStatus, Type: b.r.typeName}
	}
	out := make([]BatchResult[T], len(resp.OperationResults))
	for i, res := range resp.OperationResults {
		out[i] = BatchResult[T]{StatusCode: int(res.StatusCode), ETag: res.ETag}
		if len(res.ResourceBody) > 0 {
			item, _, err := decode[T](&b.r.core, res.ResourceBody)
			if err != nil {
				return out, err
			}
			out[i].Item = item
		}
	}
	return out, nil
}

// BatchError is a transactional batch that was rolled back because one operation failed.
type BatchError struct {
	// Index is the failing operation's position, -1 if the response named none.
	Index int
	// StatusCode is the failing operation's status.
	StatusCode int
	// Type is the repository's type discriminator.
	Type string
}

// Error returns "repository: batch of <type> rolled back: operation <i> failed with <status>".
func (e *BatchError) Error() string {
	return fmt.Sprintf("repository: batch of %s rolled back: operation %d failed with %d %s", e.Type, e.Index, e.StatusCode, http.StatusText(e.StatusCode))
}

// Is matches the sentinel of the failing operation's status.
func (e *BatchError) Is(target error) bool {
	switch e.StatusCode {
	case http.StatusNotFound:
		return target == ErrNotFound
	case http.StatusConflict:
		return target == ErrConflict
	case http.StatusPreconditionFailed:
		return target == ErrPreconditionFailed
	case http.StatusTooManyRequests:
		return target == ErrThrottled
	case http.StatusBadRequest:
		return target == ErrBadRequest
	}
	return false
}
