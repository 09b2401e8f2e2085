package repository

import (
	"context"
	"errors"
	"strconv"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
)

// Ref names one item: its id and partition key (a partitionkey.Key or an azcosmos.PartitionKey,
// checked before sending as described at PartitionKey).
type Ref struct {
	ID           string
	PartitionKey PartitionKey
}

// ReadMany reads the items refs name (the SDK groups them by partition into few requests) and
// returns those that exist, in the order of refs; missing items are left out. A document of
// another type is an error matching cosmoserr.ErrTypeMismatch. Invalid ids or keys are a *cosmoserr.ValidationError
// naming the index, and nothing is sent.
func (r *Repository[T]) ReadMany(ctx context.Context, refs []Ref) (_ []T, err error) {
	ctx, end := r.start(ctx, "repository.ReadMany")
	defer func() { end(err) }()
	ids := make([]azcosmos.ItemIdentity, len(refs))
	for i, ref := range refs {
		pk, err := r.checkPoint(ref.PartitionKey, ref.ID)
		if err != nil {
			var ve *cosmoserr.ValidationError
			if errors.As(err, &ve) {
				ve.Field = "refs[" + strconv.Itoa(i) + "]." + ve.Field
			}
			return nil, err
		}
		ids[i] = azcosmos.ItemIdentity{ID: ref.ID, PartitionKey: pk}
	}
	if len(refs) == 0 {
		return nil, nil
	}
	resp, err := r.c.ReadManyItems(ctx, ids, nil)
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
		id, _ := r.key(item)
		for _, i := range byID[id] {
			if slots[i] == nil && r.refMatches(refs[i], doc) {
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

// refMatches reports whether doc, an item with ref's id, is the one ref names: its own key at
// Options.PartitionKeyPaths equals the ref's key, a partitionkey.Key or an azcosmos.PartitionKey
// (read by sdkKey). Without PartitionKeyPaths, or for an SDK key that cannot be read, the first
// unfilled ref with the id takes the document.
func (c *core) refMatches(ref Ref, doc []byte) bool {
	var k partitionkey.Key
	switch x := ref.PartitionKey.(type) {
	case partitionkey.Key:
		k = x
	case *partitionkey.Key:
		k = *x
	case azcosmos.PartitionKey:
		var ok bool
		if k, ok = sdkKey(x); !ok {
			return true
		}
	default:
		return true
	}
	if len(c.pkPaths) == 0 {
		return true
	}
	got, err := c.docKey(doc)
	return err == nil && got.Equal(k)
}
