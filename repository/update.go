package repository

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

// Update reads the item with id in partition pk, applies fn to it and replaces it with If-Match on
// the ETag it read (the optimistic concurrency loop). When another writer got there first (412),
// it reads again and re-applies fn, up to Options.UpdatePolicy.MaxAttempts rounds (default 3),
// then returns an error matching cosmoserr.ErrTooManyAttempts and cosmoserr.ErrPreconditionFailed. fn may be called
// more than once and must only change *T; an error from fn stops Update and is returned as is.
// fn must not change the id or partition key (a *cosmoserr.ValidationError). Update returns the item as
// stored.
func (r *Repository[T]) Update(ctx context.Context, key PartitionKey, id string, fn func(*T) error) (_ T, err error) {
	ctx, end := r.start(ctx, "repository.Update")
	defer func() { end(err) }()
	var out T
	pk, err := r.checkPoint(key, id)
	if err != nil {
		return out, err
	}
	var fnErr error
	attempts := 0
	err = retry.Do(ctx, r.policy, func(ctx context.Context) error {
		attempts++
		resp, err := r.c.ReadItem(ctx, pk, id, nil)
		if err != nil {
			return r.opError(cosmoserr.OpReadItem, id, err)
		}
		item, _, err := decode[T](&r.core, resp.Value)
		if err != nil {
			return err
		}
		if err := fn(&item); err != nil {
			fnErr = err
			return err
		}
		if nid, _ := r.key(item); nid != id {
			return invalid(cosmoserr.ErrValidation, "item", "Update's function changed the id or partition key")
		}
		// The item must stay where it is: its key at PartitionKeyPaths must still be the one
		// read (the repository's own typed values; an azcosmos.PartitionKey cannot be compared),
		// else the service refuses the replace (400/1001).
		want := key
		if len(r.pkPaths) > 0 {
			if before, err := r.docKey(resp.Value); err == nil {
				want = before
			}
		}
		body, err := r.encodeFor(ctx, &item, id, want)
		var ve *cosmoserr.ValidationError
		if errors.As(err, &ve) && errors.Is(ve.Kind, cosmoserr.ErrInvalidPartitionKey) && ve.Reason == reasonKeyDiffers {
			return invalid(cosmoserr.ErrValidation, "item", "Update's function changed the id or partition key")
		}
		if err != nil {
			return err
		}
		defer body.release()
		etag := resp.ETag
		wr, err := r.c.ReplaceItem(ctx, pk, id, body.b, &azcosmos.ItemOptions{EnableContentResponseOnWrite: true, IfMatchEtag: &etag})
		if err != nil {
			return r.opError(cosmoserr.OpReplaceItem, id, err)
		}
		out, err = r.stored(item, wr.Value)
		return err
	})
	if err == nil {
		return out, nil
	}
	if fnErr != nil && errors.Is(err, fnErr) {
		return out, fnErr
	}
	return out, loopError(err, attempts)
}

// loopError turns what retry.Do returned for an ETag loop into the error of the repository call.
func loopError(err error, attempts int) error {
	if err == nil {
		return nil
	}
	var ae *retry.AttemptsError
	switch {
	case !errors.As(err, &ae) || ae.Cause != nil:
		return err // the context ended the loop: keep both errors
	case errors.Is(ae.Err, cosmoserr.ErrPreconditionFailed):
		return &tooManyAttempts{attempts: attempts, last: ae.Err}
	default:
		return ae.Err // not retried: not found, type mismatch, validation...
	}
}

// Patch is a partial update built from the SDK's patch operations (set, add, replace, remove,
// increment). It is checked before sending: at most 10 operations, none on /id, /type,
// /schemaVersion or a system property (/_...). Builder methods record the first error;
// Repository.Patch returns it. The zero value is an empty patch.
type Patch struct {
	ops  azcosmos.PatchOperations
	n    int
	cond string
	err  error
}

func (p *Patch) add(path string, f func()) *Patch {
	if p.err != nil {
		return p
	}
	switch {
	case !strings.HasPrefix(path, "/") || path == "/":
		p.err = invalid(cosmoserr.ErrInvalidPatch, "patch", fmt.Sprintf("path %q must start with / and name a property", path))
	case path == "/id" || path == "/type" || path == "/schemaVersion" || strings.HasPrefix(path, "/_") ||
		strings.HasPrefix(path, "/type/") || strings.HasPrefix(path, "/id/") || strings.HasPrefix(path, "/schemaVersion/"):
		p.err = invalid(cosmoserr.ErrInvalidPatch, "patch", fmt.Sprintf("path %q is owned by the repository or the service", path))
	case p.n == MaxPatchOperations:
		p.err = invalid(cosmoserr.ErrInvalidPatch, "patch", fmt.Sprintf("more than %d operations", MaxPatchOperations))
	default:
		p.n++
		f()
	}
	return p
}

// NewPatch returns an empty patch; the zero Patch is ready to use as well.
func NewPatch() *Patch { return new(Patch) }

// Set sets the property at path (a JSON pointer, "/status") to value, creating it if needed.
func (p *Patch) Set(path string, value any) *Patch {
	return p.add(path, func() { p.ops.AppendSet(path, value) })
}

// Add adds value at path: a new property, or an array element ("/tags/-" appends).
func (p *Patch) Add(path string, value any) *Patch {
	return p.add(path, func() { p.ops.AppendAdd(path, value) })
}

// Replace replaces the existing property at path.
func (p *Patch) Replace(path string, value any) *Patch {
	return p.add(path, func() { p.ops.AppendReplace(path, value) })
}

// Remove removes the property at path.
func (p *Patch) Remove(path string) *Patch {
	return p.add(path, func() { p.ops.AppendRemove(path) })
}

// Increment adds delta to the number at path.
func (p *Patch) Increment(path string, delta int64) *Patch {
	return p.add(path, func() { p.ops.AppendIncrement(path, delta) })
}

// When makes the patch conditional on a predicate over the stored document, written against the
// alias c: "c.status = 'open'". The service does not take parameters in patch conditions, so the
// predicate is sent as written: build it from constants only, never from user input. It may not
// contain double quotes or backslashes (use single-quoted strings). A failed condition is
// cosmoserr.ErrPreconditionFailed.
func (p *Patch) When(predicate string) *Patch {
	if p.err == nil && strings.ContainsAny(predicate, "\"\\") {
		p.err = invalid(cosmoserr.ErrInvalidPatch, "condition", "may not contain \" or \\ (use single-quoted strings)")
	}
	p.cond = predicate
	return p
}

// Len returns the number of operations.
func (p *Patch) Len() int { return p.n }

// Patch applies p to the item with id in partition pk and returns the item as stored. The patch
// only applies to a document of this repository's type and current schema version: that guard and
// p's When predicate travel as the patch condition. When the service answers 412, one point read
// tells why: a document of another type or a newer version is an error matching cosmoserr.ErrTypeMismatch
// or cosmoserr.ErrUnknownSchemaVersion (and cosmoserr.ErrPreconditionFailed); one of an older version is upgraded,
// written back with If-Match, and patched again (without IfMatch only: an upgrade changes the
// ETag); a failed When or IfMatch is cosmoserr.ErrPreconditionFailed. An invalid patch is a
// *cosmoserr.ValidationError and nothing is sent.
func (r *Repository[T]) Patch(ctx context.Context, key PartitionKey, id string, p *Patch, opts ...WriteOption) (_ T, err error) {
	ctx, end := r.start(ctx, "repository.Patch")
	defer func() { end(err) }()
	var zero T
	pk, err := r.checkPoint(key, id)
	if err != nil {
		return zero, err
	}
	if p == nil || p.n == 0 {
		return zero, invalid(cosmoserr.ErrInvalidPatch, "patch", "has no operations")
	}
	if p.err != nil {
		return zero, p.err
	}
	o := applyWriteOptions(opts)
	ops := r.patchOps(p)
	io := azcosmos.ItemOptions{EnableContentResponseOnWrite: true, IfMatchEtag: o.ifMatch}
	resp, err := r.c.PatchItem(ctx, pk, id, ops, &io)
	if err != nil {
		err = r.opError(cosmoserr.OpPatchItem, id, err)
		if !errors.Is(err, cosmoserr.ErrPreconditionFailed) {
			return zero, err
		}
		again, why := r.explainPatch(ctx, pk, id, o.ifMatch, err)
		if !again {
			return zero, why
		}
		if resp, err = r.c.PatchItem(ctx, pk, id, ops, &io); err != nil {
			return zero, r.opError(cosmoserr.OpPatchItem, id, err)
		}
	}
	if len(resp.Value) == 0 {
		return r.Get(ctx, pk, id)
	}
	out, _, err := decode[T](&r.core, resp.Value)
	return out, err
}

// explainPatch finds out, after a patch failed with 412, which part of its condition failed: with
// one point read, a document of another type or of a version newer than the code becomes an error
// matching cosmoserr.ErrTypeMismatch or cosmoserr.ErrUnknownSchemaVersion as well as cosmoserr.ErrPreconditionFailed; a document
// of an older version is upgraded and written back (Update's ETag loop), and again reports that
// the patch may be sent once more. Otherwise (a changed ETag, a failed When) failed is returned.
func (r *Repository[T]) explainPatch(ctx context.Context, pk azcosmos.PartitionKey, id string, ifMatch *azcore.ETag, failed error) (again bool, err error) {
	resp, err := r.c.ReadItem(ctx, pk, id, nil)
	if err != nil {
		return false, failed
	}
	if ifMatch != nil && resp.ETag != *ifMatch {
		return false, failed
	}
	h, _ := scanHeader(resp.Value, false)
	if err := r.checkHeaderForRead(h); err != nil {
		return false, &bothErrors{err, failed}
	}
	if r.docVersion(h) == r.version || ifMatch != nil {
		return false, failed // the When predicate; or an old version the caller's ETag pins
	}
	if _, err := r.Update(ctx, pk, id, func(*T) error { return nil }); err != nil {
		return false, err
	}
	return true, nil
}

// bothErrors is an explanation joined with the error it explains: it matches both.
type bothErrors struct{ why, err error }

func (e *bothErrors) Error() string   { return e.why.Error() + " (" + e.err.Error() + ")" }
func (e *bothErrors) Unwrap() []error { return []error{e.why, e.err} }

// patchOps returns p's operations with the type and version guard (and p's predicate) as the
// condition.
func (c *core) patchOps(p *Patch) azcosmos.PatchOperations {
	ops := p.ops
	cond := "FROM c WHERE c.type = '" + c.typeName + "' AND c.schemaVersion = " + c.versionStr
	if p.cond != "" {
		cond += " AND (" + p.cond + ")"
	}
	ops.SetCondition(cond)
	return ops
}
