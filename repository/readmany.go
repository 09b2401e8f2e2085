package repository

import (
	"context"
	"errors"
	"strconv"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// Ref names one item: its id and partition key.
type Ref = azcosmos.ItemIdentity

// ReadMany reads the items refs name (the SDK groups them by partition into few requests) and
// returns those that exist, in the order of refs; missing items are left out. A document of
// another type is an error matching ErrTypeMismatch. Invalid ids or keys are a *ValidationError
// naming the index, and nothing is sent.
func (r *Repository[T]) ReadMany(ctx context.Context, refs []Ref) (_ []T, err error) {
	ctx, end := r.start(ctx, "repository.ReadMany")
	defer func() { end(err) }()
	for i, ref := range refs {
		if err := r.checkPoint(ref.PartitionKey, ref.ID); err != nil {
			var ve *ValidationError
			if errors.As(err, &ve) {
				ve.Field = "refs[" + strconv.Itoa(i) + "]." + ve.Field
			}
			return nil, err
		}
	}
	if len(refs) == 0 {
		return nil, nil
	}
	resp, err := r.c.ReadManyItems(ctx, refs, nil)
	if err != nil {
		return nil, r.opError("read_many_items", "", err)
	}
	byID := make(map[string][]int, len(refs))
	for i, ref := range refs {
		byID[ref.ID] = append(byID[ref.ID], i)
	}
	slots := make([]*T, len(refs))
	for _, doc := range resp.Items {
		item, _, err := decode[T](&r.core, doc)
		if err != nil {
			return nil, err
		}
		id, pk := r.key(item)
		for _, i := range byID[id] {
			if slots[i] == nil && keyEqual(pk, refs[i].PartitionKey) {
				slots[i] = &item
				break
			}
		}
	}
	out := make([]T, 0, len(resp.Items))
	for _, s := range slots {
		if s != nil {
			out = append(out, *s)
		}
	}
	return out, nil
}
