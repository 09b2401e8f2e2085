package changefeed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/plural"
)

// updateAttempts bounds the re-read-and-retry rounds of a lease replace that lost an If-Match race
// (.NET's RetryCountOnConflict).
const updateAttempts = 5

// store reads and writes one processor's lease documents. The lease container is partitioned by
// /id, so each document's partition key is its id.
type store struct {
	c   *azcosmos.ContainerClient
	ids ids
	now func() time.Time
}

func pkOf(id string) azcosmos.PartitionKey { return azcosmos.NewPartitionKeyString(id) }

func statusOf(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}

// wrap turns an SDK error into the diagnostics error model.
func (s *store) wrap(op string, err error) error {
	e := cosmoserr.FromError(op, err)
	var de *cosmoserr.Error
	if errors.As(e, &de) && de.Container == "" {
		de.Container = s.c.ID()
	}
	return e
}

// list returns every lease of the processor (not its .info/.lock documents).
func (s *store) list(ctx context.Context) ([]*lease, error) {
	q := "SELECT * FROM c WHERE STARTSWITH(c.id, @prefix)"
	pager := s.c.NewQueryItemsPager(q, azcosmos.NewPartitionKey(), &azcosmos.QueryOptions{
		QueryParameters: []azcosmos.QueryParameter{{Name: "@prefix", Value: s.ids.leasePrefix()}},
	})
	var out []*lease
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, s.wrap(cosmoserr.OpQueryItems, err)
		}
		for _, raw := range page.Items {
			l := new(lease)
			if err := json.Unmarshal(raw, l); err != nil {
				return nil, fmt.Errorf("changefeed: lease document in %s is not valid: %w", s.c.ID(), err)
			}
			if l.LeaseToken != "" {
				out = append(out, l)
			}
		}
	}
	return out, nil
}

func (s *store) read(ctx context.Context, id string) (*lease, error) {
	resp, err := s.c.ReadItem(ctx, pkOf(id), id, nil)
	if err != nil {
		return nil, s.wrap(cosmoserr.OpReadItem, err)
	}
	l := new(lease)
	if err := json.Unmarshal(resp.Value, l); err != nil {
		return nil, fmt.Errorf("changefeed: lease document %s is not valid: %w", id, err)
	}
	l.ETag = resp.ETag
	return l, nil
}

// create writes a new lease; created is false (and err nil) when it already exists.
func (s *store) create(ctx context.Context, l *lease) (created bool, err error) {
	b, err := json.Marshal(l)
	if err != nil {
		return false, err
	}
	resp, err := s.c.CreateItem(ctx, pkOf(l.ID), b, nil)
	if statusOf(err) == http.StatusConflict {
		return false, nil
	}
	if err != nil {
		return false, s.wrap(cosmoserr.OpCreateItem, err)
	}
	l.ETag = resp.ETag
	return true, nil
}

// update replaces lease l with mutate applied, with If-Match on its etag. When another writer got
// there first (412), it re-reads the lease and applies mutate to the fresh copy, up to
// updateAttempts times; mutate returns an error (usually cosmoserr.ErrLeaseLost) to give up. A deleted lease
// is cosmoserr.ErrLeaseLost. The returned lease carries the new etag.
func (s *store) update(ctx context.Context, l *lease, mutate func(*lease) error) (*lease, error) {
	cur := l.clone()
	for attempt := 1; ; attempt++ {
		next := cur.clone()
		if err := mutate(next); err != nil {
			return cur, err
		}
		next.Timestamp = s.now().UTC()
		etag := cur.ETag
		next.ETag = ""
		b, err := json.Marshal(next)
		if err != nil {
			return cur, err
		}
		resp, err := s.c.ReplaceItem(ctx, pkOf(next.ID), next.ID, b, &azcosmos.ItemOptions{IfMatchEtag: &etag})
		switch statusOf(err) {
		case 0:
			if err != nil {
				return cur, s.wrap(cosmoserr.OpReplaceItem, err)
			}
			next.ETag = resp.ETag
			return next, nil
		case http.StatusNotFound:
			return cur, fmt.Errorf("%w: lease %s was deleted", cosmoserr.ErrLeaseLost, l.LeaseToken)
		case http.StatusPreconditionFailed:
			if attempt >= updateAttempts {
				return cur, fmt.Errorf("%w: lease %s kept changing under %s", cosmoserr.ErrLeaseLost, l.LeaseToken, plural.Count(attempt, "attempt", "attempts"))
			}
			fresh, rerr := s.read(ctx, l.ID)
			if statusOf(rerr) == http.StatusNotFound {
				return cur, fmt.Errorf("%w: lease %s was deleted", cosmoserr.ErrLeaseLost, l.LeaseToken)
			}
			if rerr != nil {
				return cur, rerr
			}
			cur = fresh
		default:
			return cur, s.wrap(cosmoserr.OpReplaceItem, err)
		}
	}
}

// remove deletes lease l if it is unchanged since read (If-Match).
func (s *store) remove(ctx context.Context, l *lease) error {
	etag := l.ETag
	_, err := s.c.DeleteItem(ctx, pkOf(l.ID), l.ID, &azcosmos.ItemOptions{IfMatchEtag: &etag})
	switch statusOf(err) {
	case 0:
		if err != nil {
			return s.wrap(cosmoserr.OpDeleteItem, err)
		}
		return nil
	case http.StatusNotFound:
		return nil
	case http.StatusPreconditionFailed:
		return fmt.Errorf("%w: lease %s changed before it could be deleted", cosmoserr.ErrLeaseLost, l.LeaseToken)
	}
	return s.wrap(cosmoserr.OpDeleteItem, err)
}

// marker is the .info / .lock document of a lease store.
type marker struct {
	ID        string      `json:"id"`
	ETag      azcore.ETag `json:"_etag,omitempty"`
	Owner     string      `json:"Owner,omitempty"`
	Timestamp time.Time   `json:"timestamp"`
}

// lockTTL is how long a bootstrap lock is honoured (.NET's 30 s): an instance that died while
// creating the leases does not block the others for longer.
const lockTTL = 30 * time.Second

// bootstrap creates the leases of every current feed range of the monitored container once per
// lease store, under the store's .lock document, then writes .info. It returns done=false when
// another instance holds the lock (call again later).
func (s *store) bootstrap(ctx context.Context, monitored *azcosmos.ContainerClient, owner string) (done bool, err error) {
	if _, err := s.c.ReadItem(ctx, pkOf(s.ids.info()), s.ids.info(), nil); err == nil {
		return true, nil
	} else if statusOf(err) != http.StatusNotFound {
		return false, s.wrap(cosmoserr.OpReadItem, err)
	}
	lock := marker{ID: s.ids.lock(), Owner: owner, Timestamp: s.now().UTC()}
	b, _ := json.Marshal(lock)
	if _, err := s.c.CreateItem(ctx, pkOf(lock.ID), b, nil); statusOf(err) == http.StatusConflict {
		resp, rerr := s.c.ReadItem(ctx, pkOf(lock.ID), lock.ID, nil)
		if rerr != nil {
			return false, nil // gone meanwhile: try again next time
		}
		var held marker
		if json.Unmarshal(resp.Value, &held) == nil && s.now().Sub(held.Timestamp) > lockTTL {
			etag := resp.ETag
			_, _ = s.c.DeleteItem(ctx, pkOf(lock.ID), lock.ID, &azcosmos.ItemOptions{IfMatchEtag: &etag})
		}
		return false, nil
	} else if err != nil {
		return false, s.wrap(cosmoserr.OpCreateItem, err)
	}
	defer func() {
		_, _ = s.c.DeleteItem(context.WithoutCancel(ctx), pkOf(lock.ID), lock.ID, nil)
	}()
	// Someone may have finished between our read of .info and our lock.
	if _, err := s.c.ReadItem(ctx, pkOf(s.ids.info()), s.ids.info(), nil); err == nil {
		return true, nil
	}
	ranges, err := monitored.ReadFeedRanges(ctx, nil)
	if err != nil {
		return false, s.wrap(cosmoserr.OpReadPartitionKeyRanges, err)
	}
	for _, r := range ranges {
		if _, err := s.create(ctx, s.newLease(r, "", "")); err != nil {
			return false, err
		}
	}
	info := marker{ID: s.ids.info(), Timestamp: s.now().UTC()}
	b, _ = json.Marshal(info)
	if _, err := s.c.CreateItem(ctx, pkOf(info.ID), b, nil); err != nil && statusOf(err) != http.StatusConflict {
		return false, s.wrap(cosmoserr.OpCreateItem, err)
	}
	return true, nil
}

// newLease returns an unsaved lease for range r, owned by owner ("" for free), continuing at etag.
func (s *store) newLease(r azcosmos.FeedRange, owner, etag string) *lease {
	token := leaseToken(r)
	l := &lease{ID: s.ids.lease(token), Version: leaseVersionEPK, LeaseToken: token, FeedRange: newLeaseFeedRange(r),
		Timestamp: s.now().UTC(), Properties: map[string]string{}, Mode: leaseModeLatest}
	if owner != "" {
		l.Owner = &owner
	}
	if etag != "" {
		l.ContinuationToken = &etag
	}
	return l
}
