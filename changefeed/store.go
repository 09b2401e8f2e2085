package changefeed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
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
	c          *azcosmos.ContainerClient
	name, host string // the processor's, as in ids and in the store's .info
	ids        ids
	now        func() time.Time
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

// list returns every lease of the processor: the documents whose id is exactly its prefix, ".."
// and their LeaseToken (not its .info/.lock documents, nor leases it cannot process: see
// decodeLease). A lease of the all-versions-and-deletes mode is an error, as
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
			if !ok || l.ID != s.ids.lease(l.LeaseToken) {
				// Not a lease, or another store's: the prefix query also matches the ids of a
				// processor whose name starts with this store's whole prefix.
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

// infoDoc is the .info document marking a lease store initialized (.NET's InitializedDocument,
// {"id"}). This package adds the processor name and account host the store's ids are made of, so
// that no other processor whose name and host run together into the same ids adopts it (see
// store.errNotOurs). .NET only asks whether the .info exists
// (DocumentServiceLeaseStoreCosmos.IsInitializedAsync: ItemExistsAsync), so it reads a Go store
// as its own and keeps the fields.
type infoDoc struct {
	ID        string `json:"id"`
	Processor string `json:"processorName,omitempty"`
	Host      string `json:"accountHost,omitempty"`
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
		return true, s.checkInfo(ctx, true) // another instance (or processor) bootstrapped it
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
		return true, s.checkInfo(ctx, true)
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
	b, _ = json.Marshal(s.info())
	if _, err := s.c.CreateItem(ctx, pkOf(s.ids.info()), b, nil); statusOf(err) == http.StatusConflict {
		return true, s.checkInfo(ctx, true)
	} else if err != nil {
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
	resp, err := s.c.ReadItem(ctx, pkOf(legacy.info()), legacy.info(), nil)
	if statusOf(err) == http.StatusNotFound {
		return false, nil
	} else if err != nil {
		return false, s.wrap(cosmoserr.OpReadItem, err)
	}
	var d infoDoc
	if json.Unmarshal(resp.Value, &d) == nil && d.Processor != "" {
		return false, nil // a processor's store of this format, not the earlier one
	}
	old := &store{c: s.c, ids: legacy, now: s.now}
	leases, err := old.list(ctx)
	if err != nil {
		return false, err
	}
	for _, l := range leases {
		if l.Mode != leaseModeLegacyGo {
			// Not the earlier format: the ids of another processor's store (one named
			// "{Name}{host}_{database rid}" would make these).
			return false, nil
		}
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
// store's earlier Go format (for migration). host is Options.AccountHost; "" is the host the
// monitored container's requests go to, or the host of a store that this processor (by name)
// created earlier under another host: never one guessed from an id. With claim (the processor),
// an existing store without an owner in its .info (a .NET processor's, or an earlier Go version's)
// is claimed for name and host; without (the estimator) nothing is written. A store claimed by
// another processor is refused (see errNotOurs).
func openStore(ctx context.Context, lc, monitored *azcosmos.ContainerClient, name, host string, claim bool, log *slog.Logger) (*store, ids, error) {
	resp, err := monitored.Read(ctx, nil)
	if err != nil {
		return nil, ids{}, cosmoserr.FromError(cosmoserr.OpReadContainer, err)
	}
	rid := resp.ContainerProperties.ResourceID
	st := &store{c: lc, now: time.Now, name: name}
	if host == "" {
		if resp.RawResponse != nil && resp.RawResponse.Request != nil {
			host = resp.RawResponse.Request.URL.Hostname()
		}
		if host, err = st.findHost(ctx, rid, host, log); err != nil {
			return nil, ids{}, err
		}
	}
	st.host, st.ids = host, newIDs(name, host, rid)
	if err := st.checkInfo(ctx, claim); err != nil {
		return nil, ids{}, err
	}
	return st, ids{base: name + "_" + rid}, nil
}

// findHost returns the account host of this processor's lease store over the container rid:
// requested when the store "{name}{requested}_..." exists, else the host of a store this processor
// created under another host (its .info names this processor and that host exactly, see infoDoc),
// else requested (a new store). It never reads a host out of an id: "views" is a prefix of
// "views-audit", so "views-audit127.0.0.1_..." could be either processor's (issue 32). A store
// whose .info names no processor (a .NET processor's) under another host is not adopted; it is
// logged, as set Options.AccountHost to continue it.
func (s *store) findHost(ctx context.Context, rid, requested string, log *slog.Logger) (string, error) {
	own := newIDs(s.name, requested, rid).info()
	if _, err := s.c.ReadItem(ctx, pkOf(own), own, nil); err == nil {
		return requested, nil
	} else if statusOf(err) != http.StatusNotFound {
		return "", s.wrap(cosmoserr.OpReadItem, err)
	}
	suffix := "_" + databaseRID(rid) + "_" + rid + ".info"
	pager := s.c.NewQueryItemsPager("SELECT c.id, c.processorName, c.accountHost FROM c WHERE STARTSWITH(c.id, @name) AND ENDSWITH(c.id, @suffix)", azcosmos.NewPartitionKey(),
		&azcosmos.QueryOptions{QueryParameters: []azcosmos.QueryParameter{{Name: "@name", Value: s.name}, {Name: "@suffix", Value: suffix}}})
	var claimed, unclaimed []string
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return "", s.wrap(cosmoserr.OpQueryItems, err)
		}
		for _, raw := range page.Items {
			var d infoDoc
			switch {
			case json.Unmarshal(raw, &d) != nil:
			case d.Processor == "":
				unclaimed = append(unclaimed, d.ID)
			case d.Processor == s.name && d.Host != "" && d.ID == newIDs(s.name, d.Host, rid).info():
				claimed = append(claimed, d.Host)
			}
		}
	}
	switch {
	case len(claimed) == 1:
		return claimed[0], nil
	case len(claimed) > 1:
		slices.Sort(claimed)
		return "", fmt.Errorf("changefeed: the lease container holds lease stores of processor %q under the account hosts %q: %w", s.name, claimed,
			invalid("AccountHost", "unset, and this processor has lease stores under several account hosts: set it to the one to continue"))
	}
	if len(unclaimed) > 0 && log != nil {
		log.Warn("changefeed: starting a new lease store; lease stores whose ids start with this processor's name exist (a .NET processor's, or another processor's whose name starts with this one): if one is this processor's, stop and set Options.AccountHost to its host",
			"processor", s.name, "account_host", requested, "stores", unclaimed)
	}
	return requested, nil
}

// errNotOurs is the refusal of a lease store whose .info names another processor: under .NET's
// id layout "{Name}{account host}_...", processor "a" of host "bc.example" and processor "ab" of
// host "c.example" make the same ids; the second to start refuses rather than share its leases.
func (s *store) errNotOurs(d infoDoc) error {
	return fmt.Errorf("changefeed: lease store %s belongs to processor %q of account host %q, not to %q of %q: %w", s.ids.base, d.Processor, d.Host, s.name, s.host,
		invalid("Name", "makes the lease ids of another processor's store in this lease container (its name and account host run together into this one's): choose another Name, or set AccountHost"))
}

// checkInfo reads the store's .info, if there is one, and refuses a store claimed by another
// processor; with claim, it claims a store that names no processor.
func (s *store) checkInfo(ctx context.Context, claim bool) error {
	for range updateAttempts {
		resp, err := s.c.ReadItem(ctx, pkOf(s.ids.info()), s.ids.info(), nil)
		if statusOf(err) == http.StatusNotFound {
			return nil // a new store: bootstrap writes its .info
		} else if err != nil {
			return s.wrap(cosmoserr.OpReadItem, err)
		}
		var d infoDoc
		if err := json.Unmarshal(resp.Value, &d); err != nil {
			return fmt.Errorf("changefeed: lease store marker %s is not valid: %w", s.ids.info(), err)
		}
		switch {
		case d.Processor == s.name && d.Host == s.host:
			return nil
		case d.Processor != "":
			return s.errNotOurs(d)
		case !claim:
			return nil
		}
		b, _ := json.Marshal(s.info())
		etag := resp.ETag
		_, err = s.c.ReplaceItem(ctx, pkOf(s.ids.info()), s.ids.info(), b, &azcosmos.ItemOptions{IfMatchEtag: &etag})
		switch statusOf(err) {
		case http.StatusPreconditionFailed, http.StatusNotFound:
			continue // claimed or deleted meanwhile: read again
		case 0:
			if err != nil {
				return s.wrap(cosmoserr.OpReplaceItem, err)
			}
			return nil
		default:
			return s.wrap(cosmoserr.OpReplaceItem, err)
		}
	}
	return fmt.Errorf("changefeed: lease store marker %s kept changing under %d attempts", s.ids.info(), updateAttempts)
}

// info is this processor's .info document.
func (s *store) info() infoDoc { return infoDoc{ID: s.ids.info(), Processor: s.name, Host: s.host} }
