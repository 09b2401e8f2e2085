package changefeed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/feedrange"
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

// list returns every lease of the processor (not its .info/.lock documents, nor leases it
// cannot process: see decodeLease). A lease of the all-versions-and-deletes mode is an error, as
// in .NET.
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
			l, ok, err := decodeLease(raw)
			if err != nil {
				return nil, fmt.Errorf("changefeed: lease document in %s is not valid: %w", s.c.ID(), err)
			}
			if !ok {
				continue
			}
			if !modeOK(l.Mode) {
				what := "an unknown mode"
				if strings.EqualFold(l.Mode, leaseModeFullFidelity) {
					what = "the all-versions-and-deletes mode"
				}
				return nil, fmt.Errorf("changefeed: the lease store in %s is of %s (%q); this processor reads the latest-version feed (%q)", s.c.ID(), what, l.Mode, leaseModeIncremental)
			}
			out = append(out, l)
		}
	}
	return out, nil
}

func (s *store) read(ctx context.Context, id string) (*lease, error) {
	resp, err := s.c.ReadItem(ctx, pkOf(id), id, nil)
	if err != nil {
		return nil, s.wrap(cosmoserr.OpReadItem, err)
	}
	l, ok, err := decodeLease(resp.Value)
	if err != nil || !ok {
		return nil, fmt.Errorf("changefeed: lease document %s is not a lease this processor can read: %w", id, err)
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
		next.Timestamp = leaseTime{s.now().UTC()}
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
				return cur, fmt.Errorf("%w: lease %s kept changing under %d attempts", cosmoserr.ErrLeaseLost, l.LeaseToken, attempt)
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

// lockDoc is the .lock document of a lease store while one instance creates its leases, as .NET
// writes it (DocumentServiceLeaseStoreCosmos.LockDocument): it expires after ttl seconds where the
// lease container has time-to-live on; elsewhere a lock older than lockTTL (by its _ts) is
// deleted by the next instance that finds it.
type lockDoc struct {
	ID  string `json:"id"`
	TTL int    `json:"ttl"`
}

// infoDoc is the .info document marking a lease store initialized (.NET's InitializedDocument).
type infoDoc struct {
	ID string `json:"id"`
}

// lockTTL is how long a bootstrap lock is honoured (.NET's 30 s): an instance that died while
// creating the leases does not block the others for longer.
const lockTTL = 30 * time.Second

// bootstrap creates the leases of every current partition key range of the monitored container
// once per lease store (version 0 leases keyed by range id, as .NET and Java), under the store's
// .lock document, then writes .info. A lease store of this package's earlier format is migrated
// (see migrate). It returns done=false when another instance holds the lock (call again later).
func (s *store) bootstrap(ctx context.Context, monitored *azcosmos.ContainerClient, legacy ids) (done bool, err error) {
	if _, err := s.c.ReadItem(ctx, pkOf(s.ids.info()), s.ids.info(), nil); err == nil {
		return true, nil
	} else if statusOf(err) != http.StatusNotFound {
		return false, s.wrap(cosmoserr.OpReadItem, err)
	}
	lock := lockDoc{ID: s.ids.lock(), TTL: int(lockTTL / time.Second)}
	b, _ := json.Marshal(lock)
	if _, err := s.c.CreateItem(ctx, pkOf(lock.ID), b, nil); statusOf(err) == http.StatusConflict {
		resp, rerr := s.c.ReadItem(ctx, pkOf(lock.ID), lock.ID, nil)
		if rerr != nil {
			return false, nil // gone meanwhile: try again next time
		}
		var held struct {
			TS int64 `json:"_ts"`
		}
		if json.Unmarshal(resp.Value, &held) == nil && held.TS > 0 && s.now().Sub(time.Unix(held.TS, 0)) > lockTTL {
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
	migrated, err := s.migrate(ctx, legacy)
	if err != nil {
		return false, err
	}
	if !migrated {
		ranges, err := monitored.ReadFeedRanges(ctx, nil)
		if err != nil {
			return false, s.wrap(cosmoserr.OpReadPartitionKeyRanges, err)
		}
		for _, r := range ranges {
			id, err := rangeID(ctx, monitored, r)
			if err != nil {
				return false, err
			}
			if _, err := s.create(ctx, s.newRangeLease(id, r, "")); err != nil {
				return false, err
			}
		}
	}
	b, _ = json.Marshal(infoDoc{ID: s.ids.info()})
	if _, err := s.c.CreateItem(ctx, pkOf(s.ids.info()), b, nil); err != nil && statusOf(err) != http.StatusConflict {
		return false, s.wrap(cosmoserr.OpCreateItem, err)
	}
	return true, nil
}

// migrate moves a lease store of this package's earlier format (ids "{Name}_{container rid}..",
// version 1 leases, Mode "LatestVersion") to the .NET format: one EPK lease per old lease, with its
// range and checkpoint, free; then the old documents are deleted. Stop every instance of the
// earlier version first. It reports false when there is no such store.
func (s *store) migrate(ctx context.Context, legacy ids) (bool, error) {
	if legacy.base == "" {
		return false, nil
	}
	if _, err := s.c.ReadItem(ctx, pkOf(legacy.info()), legacy.info(), nil); statusOf(err) == http.StatusNotFound {
		return false, nil
	} else if err != nil {
		return false, s.wrap(cosmoserr.OpReadItem, err)
	}
	old := &store{c: s.c, ids: legacy, now: s.now}
	leases, err := old.list(ctx)
	if err != nil {
		return false, err
	}
	for _, l := range leases {
		if _, err := s.create(ctx, s.newEPKLease(l.feedRange(), l.continuation())); err != nil {
			return false, err
		}
	}
	for _, l := range leases {
		if _, err := s.c.DeleteItem(ctx, pkOf(l.ID), l.ID, nil); err != nil && statusOf(err) != http.StatusNotFound {
			return false, s.wrap(cosmoserr.OpDeleteItem, err)
		}
	}
	if _, err := s.c.DeleteItem(ctx, pkOf(legacy.info()), legacy.info(), nil); err != nil && statusOf(err) != http.StatusNotFound {
		return false, s.wrap(cosmoserr.OpDeleteItem, err)
	}
	return true, nil
}

// newRangeLease returns an unsaved, free version 0 lease of the partition key range id (range r),
// continuing at etag, as .NET's CreateLeaseIfNotExistAsync(PartitionKeyRange) writes it.
func (s *store) newRangeLease(id string, r azcosmos.FeedRange, etag string) *lease {
	return s.newLease(leaseVersionPKRange, id, r, etag)
}

// newEPKLease returns an unsaved, free version 1 lease of the EPK range r, continuing at etag, as
// .NET's CreateLeaseIfNotExistAsync(FeedRangeEpk) writes it.
func (s *store) newEPKLease(r azcosmos.FeedRange, etag string) *lease {
	return s.newLease(leaseVersionEPK, leaseToken(r), r, etag)
}

func (s *store) newLease(version int, token string, r azcosmos.FeedRange, etag string) *lease {
	l := &lease{ID: s.ids.lease(token), Version: version, LeaseToken: token, FeedRange: newLeaseFeedRange(r),
		Timestamp: leaseTime{s.now().UTC()}, Properties: map[string]string{}, Mode: leaseModeIncremental}
	if etag != "" {
		l.ContinuationToken = &etag
	}
	return l
}

// rangeID learns the id of the partition key range with exactly the bounds fr (internal/feedrange).
func rangeID(ctx context.Context, c *azcosmos.ContainerClient, fr azcosmos.FeedRange) (string, error) {
	id, err := feedrange.ID(ctx, c, fr)
	switch {
	case feedrange.IsNoID(err):
		return "", fmt.Errorf("changefeed: cannot learn the id of partition key range [%s, %s)", fr.MinInclusive, fr.MaxExclusive)
	case err != nil:
		return "", cosmoserr.FromError(cosmoserr.OpReadChangeFeed, err)
	}
	return id, nil
}

// openStore returns the lease store of processor name over monitored in lc, and the ids of the
// store's earlier Go format (for migration). host is Options.AccountHost: "" finds it (see there).
func openStore(ctx context.Context, lc, monitored *azcosmos.ContainerClient, name, host string) (*store, ids, error) {
	resp, err := monitored.Read(ctx, nil)
	if err != nil {
		return nil, ids{}, cosmoserr.FromError(cosmoserr.OpReadContainer, err)
	}
	rid := resp.ContainerProperties.ResourceID
	st := &store{c: lc, now: time.Now}
	if host == "" {
		if resp.RawResponse != nil && resp.RawResponse.Request != nil {
			host = resp.RawResponse.Request.URL.Hostname()
		}
		if host, err = st.findHost(ctx, name, rid, host); err != nil {
			return nil, ids{}, err
		}
	}
	st.ids = newIDs(name, host, rid)
	return st, ids{base: name + "_" + rid}, nil
}

// findHost returns the account host in the .info id of an existing lease store of processor name
// over the container rid: requested if it is one of them, else the only one; requested when there
// is none.
func (s *store) findHost(ctx context.Context, name, rid, requested string) (string, error) {
	suffix := "_" + databaseRID(rid) + "_" + rid + ".info"
	pager := s.c.NewQueryItemsPager("SELECT c.id FROM c WHERE STARTSWITH(c.id, @name) AND ENDSWITH(c.id, @suffix)", azcosmos.NewPartitionKey(),
		&azcosmos.QueryOptions{QueryParameters: []azcosmos.QueryParameter{{Name: "@name", Value: name}, {Name: "@suffix", Value: suffix}}})
	var hosts []string
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return "", s.wrap(cosmoserr.OpQueryItems, err)
		}
		for _, raw := range page.Items {
			var d infoDoc
			if json.Unmarshal(raw, &d) == nil && len(d.ID) > len(name)+len(suffix) {
				hosts = append(hosts, d.ID[len(name):len(d.ID)-len(suffix)])
			}
		}
	}
	if len(hosts) == 1 && hosts[0] != requested {
		return hosts[0], nil
	}
	return requested, nil
}
