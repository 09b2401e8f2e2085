package changefeed

import (
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// leaseVersionEPK is the .NET/Java lease version of a lease over an EPK range (1); PK-range-id
// leases (0) are never written by this package.
const leaseVersionEPK = 1

// leaseModeLatest is the .NET "Mode" of a latest-version lease store.
const leaseModeLatest = "LatestVersion"

// lease is a lease document in the lease container, with the .NET v3 and Java v4 field names and
// meaning: one per feed range, owned by at most one instance at a time; every change is a replace
// with If-Match on its _etag.
type lease struct {
	ID                string            `json:"id"`
	ETag              azcore.ETag       `json:"_etag,omitempty"`
	Version           int               `json:"version"`
	LeaseToken        string            `json:"LeaseToken"`
	FeedRange         leaseFeedRange    `json:"FeedRange"`
	Owner             *string           `json:"Owner"`
	ContinuationToken *string           `json:"ContinuationToken"`
	Timestamp         time.Time         `json:"timestamp"`
	Properties        map[string]string `json:"properties"`
	Mode              string            `json:"Mode"`
}

// leaseFeedRange is the JSON of a .NET FeedRangeEpk: {"Range":{"min":..,"max":..}}.
type leaseFeedRange struct {
	Range struct {
		Min string `json:"min"`
		Max string `json:"max"`
	} `json:"Range"`
}

func newLeaseFeedRange(r azcosmos.FeedRange) leaseFeedRange {
	var f leaseFeedRange
	f.Range.Min, f.Range.Max = r.MinInclusive, r.MaxExclusive
	return f
}

func (l *lease) feedRange() azcosmos.FeedRange {
	return azcosmos.FeedRange{MinInclusive: l.FeedRange.Range.Min, MaxExclusive: l.FeedRange.Range.Max}
}

func (l *lease) owner() string {
	if l.Owner == nil {
		return ""
	}
	return *l.Owner
}

func (l *lease) continuation() string {
	if l.ContinuationToken == nil {
		return ""
	}
	return *l.ContinuationToken
}

// expired reports whether the lease is free or its owner has not renewed it within expiration.
func (l *lease) expired(now time.Time, expiration time.Duration) bool {
	return l.owner() == "" || now.Sub(l.Timestamp) > expiration
}

func (l *lease) clone() *lease {
	c := *l
	if l.Owner != nil {
		o := *l.Owner
		c.Owner = &o
	}
	if l.ContinuationToken != nil {
		t := *l.ContinuationToken
		c.ContinuationToken = &t
	}
	if l.Properties != nil {
		c.Properties = make(map[string]string, len(l.Properties))
		for k, v := range l.Properties {
			c.Properties[k] = v
		}
	}
	return &c
}

// leaseToken is the .NET EPK lease token of a range: "<min>-<max>".
func leaseToken(r azcosmos.FeedRange) string { return r.MinInclusive + "-" + r.MaxExclusive }

// ids names the documents of one processor's lease store in the lease container. Like .NET
// ("{prefix}{host}_{dbRid}_{containerRid}..{token}"), every id starts with the processor name
// and names the monitored container, so processors and containers can share a lease container.
type ids struct{ base string }

func newIDs(name, containerRID string) ids {
	clean := strings.Map(func(r rune) rune {
		switch r {
		case '/', '\\', '#', '?':
			return '-'
		}
		return r
	}, containerRID)
	return ids{base: name + "_" + clean}
}

func (i ids) leasePrefix() string       { return i.base + ".." }
func (i ids) lease(token string) string { return i.base + ".." + token }
func (i ids) info() string              { return i.base + ".info" }
func (i ids) lock() string              { return i.base + ".lock" }

// LeaseState is one lease as the processor or the estimator sees it.
type LeaseState struct {
	// LeaseToken names the lease: "<min>-<max>" of its feed range.
	LeaseToken string
	// FeedRange is the range of effective partition keys the lease covers.
	FeedRange azcosmos.FeedRange
	// Owner is the instance name holding the lease, "" when free.
	Owner string
	// ContinuationToken is the checkpoint: the etag of the last change handled, "" before the
	// first checkpoint.
	ContinuationToken string
	// Timestamp is the last acquire, renewal or checkpoint.
	Timestamp time.Time
	// EstimatedLag is the number of changes after the checkpoint (Estimator only; an estimate: a
	// document changed several times counts each time).
	EstimatedLag int64
	// Stopped is set (Processor.State only) when this instance stopped the lease on a poison
	// batch; it holds the *PoisonError.
	Stopped error
}

func (l *lease) state() LeaseState {
	return LeaseState{LeaseToken: l.LeaseToken, FeedRange: l.feedRange(), Owner: l.owner(),
		ContinuationToken: l.continuation(), Timestamp: l.Timestamp}
}
