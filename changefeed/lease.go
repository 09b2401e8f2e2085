package changefeed

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// Lease versions, as .NET v3 writes them (DocumentServiceLeaseVersion).
const (
	// leaseVersionPKRange (0) is a lease of one partition key range, named by its id
	// (DocumentServiceLeaseCore): what .NET and this package create for a container's ranges.
	leaseVersionPKRange = 0
	// leaseVersionEPK (1) is a lease of an EPK range, named "<min>-<max>"
	// (DocumentServiceLeaseCoreEpk): .NET creates them when an EPK lease splits.
	leaseVersionEPK = 1
)

// Lease modes: the A-IM value of the feed (.NET's HttpConstants.A_IMHeaderValues), written in
// "Mode"; .NET refuses to start on a lease store of the other mode (compared case-insensitively;
// a lease without Mode is Incremental Feed).
const (
	leaseModeIncremental  = "Incremental Feed"
	leaseModeFullFidelity = "Full-Fidelity Feed"
	leaseModeLegacyGo     = "LatestVersion" // what this package wrote before it followed .NET
)

// lease is a lease document in the lease container, in the .NET v3 format (DocumentServiceLeaseCore
// and DocumentServiceLeaseCoreEpk, serialized by Newtonsoft in this field order): one per feed range, owned by at most one instance at a time; every change is a replace
// with If-Match on its _etag. testdata/ holds fixtures written from the .NET source.
type lease struct {
	ID                string            `json:"id"`
	Version           int               `json:"version"`
	ETag              azcore.ETag       `json:"_etag,omitempty"`
	LeaseToken        string            `json:"LeaseToken"`
	FeedRange         *leaseFeedRange   `json:"FeedRange,omitempty"`
	Owner             *string           `json:"Owner"`
	ContinuationToken *string           `json:"ContinuationToken"`
	Properties        map[string]string `json:"properties"`
	Timestamp         leaseTime         `json:"timestamp"`
	TS                int64             `json:"_ts,omitempty"` // read only: the server's last write, when timestamp is missing
	Mode              string            `json:"Mode,omitempty"`
}

// leaseTime is the lease's "timestamp" as .NET writes it (a UTC DateTime through Newtonsoft:
// ISO 8601, at most 7 fractional digits, trailing zeros dropped, "Z"). It reads any RFC 3339 time,
// one without a zone as UTC, and null.
type leaseTime struct{ time.Time }

const dotnetTimeLayout = "2006-01-02T15:04:05.9999999Z"

func (t leaseTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + t.UTC().Format(dotnetTimeLayout) + `"`), nil
}

func (t *leaseTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.9999999"} {
		if v, err := time.Parse(layout, s); err == nil {
			t.Time = v.UTC()
			return nil
		}
	}
	return fmt.Errorf("changefeed: lease timestamp is not an ISO 8601 time")
}

// leaseFeedRange is the JSON of a .NET FeedRangeEpk: {"Range":{"min":..,"max":..}} (the range is
// min-inclusive and max-exclusive, which .NET's RangeJsonConverter writes without the
// isMinInclusive/isMaxInclusive flags).
type leaseFeedRange struct {
	Range struct {
		Min            string `json:"min"`
		Max            string `json:"max"`
		IsMinInclusive *bool  `json:"isMinInclusive,omitempty"`
		IsMaxInclusive *bool  `json:"isMaxInclusive,omitempty"`
	} `json:"Range"`
}

func newLeaseFeedRange(r azcosmos.FeedRange) *leaseFeedRange {
	f := new(leaseFeedRange)
	f.Range.Min, f.Range.Max = r.MinInclusive, r.MaxExclusive
	return f
}

func (l *lease) feedRange() azcosmos.FeedRange {
	if l.FeedRange == nil {
		return azcosmos.FeedRange{}
	}
	return azcosmos.FeedRange{MinInclusive: l.FeedRange.Range.Min, MaxExclusive: l.FeedRange.Range.Max}
}

// decodeLease reads a lease document, .NET's or this package's. ok is false for a
// document that is not a lease this package can process: the store's .info/.lock, or a lease
// without a FeedRange (written by the v2 .NET library and not yet acquired by a v3 processor,
// which adds it), or a lease of another mode.
func decodeLease(raw []byte) (l *lease, ok bool, err error) {
	l = new(lease)
	if err := json.Unmarshal(raw, l); err != nil {
		return nil, false, err
	}
	if l.LeaseToken == "" {
		var v2 struct {
			PartitionID string `json:"PartitionId"` // .NET v2's name of the lease token
		}
		_ = json.Unmarshal(raw, &v2)
		l.LeaseToken = v2.PartitionID
	}
	if l.LeaseToken == "" || l.FeedRange == nil {
		return l, false, nil
	}
	if l.Timestamp.IsZero() && l.TS > 0 {
		l.Timestamp.Time = time.Unix(l.TS, 0).UTC() // .NET: Timestamp falls back to _ts
	}
	l.TS = 0
	if l.Properties == nil {
		l.Properties = map[string]string{}
	}
	return l, true, nil
}

// modeOK reports whether a lease's Mode is the latest-version feed this package reads.
func modeOK(mode string) bool {
	return mode == "" || strings.EqualFold(mode, leaseModeIncremental) || mode == leaseModeLegacyGo
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
	return l.owner() == "" || now.Sub(l.Timestamp.Time) > expiration
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
		c.Properties = maps.Clone(l.Properties)
	}
	if l.FeedRange != nil {
		f := *l.FeedRange
		c.FeedRange = &f
	}
	return &c
}

// leaseToken is the .NET EPK lease token of a range: "<min>-<max>".
func leaseToken(r azcosmos.FeedRange) string { return r.MinInclusive + "-" + r.MaxExclusive }

// ids names the documents of one processor's lease store in the lease container, as .NET v3
// does: every id starts with "{Name}{account host}_{database rid}_{container rid}" (.NET's
// GetLeasePrefix with the processor name as lease prefix), leases add ".." and their token, and
// the store's markers are ".info" and ".lock".
type ids struct{ base string }

func newIDs(name, host, containerRID string) ids {
	return ids{base: name + host + "_" + databaseRID(containerRID) + "_" + containerRID}
}

// databaseRID is the rid of the database of the container whose rid is containerRID: its first
// four bytes, in the service's base64 (with - for /), as .NET's ResourceId.DatabaseId.
func databaseRID(containerRID string) string {
	raw, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(containerRID, "-", "/"))
	if err != nil || len(raw) < 4 {
		return ""
	}
	return strings.ReplaceAll(base64.StdEncoding.EncodeToString(raw[:4]), "/", "-")
}

func (i ids) leasePrefix() string       { return i.base + ".." }
func (i ids) lease(token string) string { return i.base + ".." + token }
func (i ids) info() string              { return i.base + ".info" }
func (i ids) lock() string              { return i.base + ".lock" }

// LeaseState is one lease as the processor or the estimator sees it.
type LeaseState struct {
	// LeaseToken names the lease: the partition key range id for a lease of a whole partition
	// (version 0, as .NET creates them), "<min>-<max>" of its feed range for an EPK lease
	// (version 1).
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
		ContinuationToken: l.continuation(), Timestamp: l.Timestamp.Time}
}
