package cosmostest

import (
	"maps"
	"slices"
	"time"
)

// Replication (WithReplicationLag, SetReplicationLag): every region holds its own copy of every
// physical partition of a container, and a write reaches the other regions' copies after the
// receiving region's lag.
//
//   - The container's own ranges (c.ranges) are the home region's copies: the write region of a
//     single-write account (FailoverWriteRegion moves them), region 0 of a multi-write account.
//     Every other region reads (and, multi-write, writes) a view of the container (c.views[i])
//     whose ranges are that region's copies: same ids and EPK bounds, their own items, LSN and
//     session progress. Handlers run unchanged on a view; the document sequence (_rid) stays
//     shared through the view's base.
//   - Every write to a copy is appended to its partition's replication log (replLog) with its
//     origin region, its LSN there and the server time. A copy applies the log's entries of other
//     origins in log order once time + lag(receiving region) <= now, lazily, whenever a request
//     reaches that region's copy (under srv.mu), so replication is in order per physical
//     partition and monotonic. Entries every copy has applied are dropped.
//   - Single-write: the log has one origin and a copy's LSN is the write region's LSN of the last
//     entry applied (items are shared, immutable versions). Multi-write: a copy counts its own LSN
//     (the token's global LSN) and keeps, per origin region, the highest origin LSN applied
//     (progress, the vector of the session token); a replicated write that did not supersede the
//     copy's current version is a conflict resolved by the container's policy (conflicts.go).
//   - With every lag 0 nothing is copied: until a lag is set, the container has no views and
//     every region serves c.ranges as before. Setting a lag copies every container's current
//     state to each region (what was written before is replicated at once).
//   - Splits (SplitRange) first apply every pending entry of the parent to every copy, then split
//     the home copy and rebuild the other regions' copies of the children from it, each child
//     with a new log. Failover (FailoverWriteRegion, single-write) applies everything pending
//     everywhere and then hands the home role to the new write region's copies.
//   - TTL is evaluated by each copy on the server clock against the version's _ts, so a stale
//     copy expires an item at the same moment as the write region; an expiry is not a logged
//     write.

// logEntry is one write in a partition's replication log.
type logEntry struct {
	origin int       // region index the write was made in
	olsn   int64     // the LSN the write got in its origin's copy
	at     time.Time // server time of the write
	key    string    // itemKey(pk, id)
	pk     []any
	id     string
	it     *item  // the new version; nil for a delete
	prev   string // _etag of the version the write replaced in its origin's copy; "" for none
	// Multi-write: the version's tag (its _etag; a new tag for a delete) and the tags of the
	// versions it supersedes (every head of the item in the origin's copy when it was written).
	tag   string
	prevs []string
}

// replLog is the replication log of one physical partition, shared by every region's copy.
type replLog struct {
	c       *container // the home container (views share its policy and TTL)
	base    int64      // absolute index of entries[0]
	entries []logEntry
	copies  []*pkRange // every region's copy, the home copy included
}

// rangeCopy is the replication state of one region's copy of a physical partition.
type rangeCopy struct {
	log     *replLog
	region  int
	applied int64 // absolute index of the next log entry this copy has not looked at
}

// logTrimAt is the log length at which entries every copy has applied are dropped.
const logTrimAt = 256

// home is the index of the region whose copies are the containers' own ranges; callers hold mu.
func (srv *server) home() int {
	if srv.cfg.multiWrite {
		return 0
	}
	return srv.writeRegion
}

// logWrite records a write of key in r after r's LSN was advanced for it: it (nil for a delete)
// replaced the version tagged prev. It keeps the multi-write progress of the writing region and
// appends to r's replication log (or to a batch's staged entries, committed by commitEntry).
// Callers hold mu.
func (srv *server) logWrite(r *pkRange, key string, pk []any, id string, it *item, prev string) {
	if r.progress != nil {
		r.progress[srv.origin] = r.lsn
	}
	if r.staged == nil && r.copy == nil {
		return
	}
	e := logEntry{origin: srv.origin, olsn: r.lsn, at: srv.now(), key: key, pk: pk, id: id, it: it, prev: prev}
	if r.staged != nil {
		*r.staged = append(*r.staged, e)
		return
	}
	srv.commitEntry(r, e)
}

// commitEntry appends a local write to copy r's log; on a multi-write account it first records
// which versions the write supersedes (conflicts.go).
func (srv *server) commitEntry(r *pkRange, e logEntry) {
	if r.progress != nil {
		srv.localHeads(r, &e)
	}
	srv.appendLog(r, e)
}

// appendLog appends e, written to copy w, to w's partition log. From logTrimAt entries on, the
// other copies apply what is due and the entries every copy has applied are dropped; w itself is
// left alone (the request writing to it was caught up when it started).
func (srv *server) appendLog(w *pkRange, e logEntry) {
	l := w.copy.log
	l.entries = append(l.entries, e)
	if len(l.entries) < logTrimAt {
		return
	}
	lo := l.base + int64(len(l.entries))
	for _, r := range l.copies {
		if r != w {
			srv.catchUp(r, nil, false)
		}
		lo = min(lo, r.copy.applied)
	}
	if n := int(lo - l.base); n > 0 {
		l.entries = slices.Delete(l.entries, 0, n)
		l.base = lo
	}
}

// versionTag is the _etag of v, "" for none.
func versionTag(v *item) string {
	if v == nil {
		return ""
	}
	return v.etag
}

// staleness bounds a Bounded Staleness read: a copy applies log entries beyond maxVersions
// pending ones, and those older than maxLag, whatever its replication lag.
type staleness struct {
	maxVersions int64
	maxLag      time.Duration
}

// catchUp applies to copy r the log entries of other regions that are due: older than the
// region's lag, or (bs) outside the staleness bounds, or all of them (all). Callers hold mu.
func (srv *server) catchUp(r *pkRange, bs *staleness, all bool) {
	cp := r.copy
	if cp == nil {
		return
	}
	l := cp.log
	end := l.base + int64(len(l.entries))
	if cp.applied >= end {
		return
	}
	now := srv.now()
	lag := srv.lags[cp.region]
	forceTo := cp.applied // entries before forceTo are applied whatever their age
	if all {
		forceTo = end
	} else if bs != nil {
		var pending int64
		for i := cp.applied; i < end; i++ {
			if l.entries[i-l.base].origin != cp.region {
				pending++
			}
		}
		for i := cp.applied; i < end && pending > bs.maxVersions; i++ {
			if l.entries[i-l.base].origin != cp.region {
				pending--
				forceTo = i + 1
			}
		}
	}
	for ; cp.applied < end; cp.applied++ {
		e := &l.entries[cp.applied-l.base]
		if e.origin == cp.region {
			continue // the copy's own write
		}
		due := cp.applied < forceTo || !e.at.Add(lag).After(now) || (bs != nil && !e.at.Add(bs.maxLag).After(now))
		if !due {
			return
		}
		srv.apply(l.c, r, e)
	}
}

// apply applies a replicated write to copy r.
func (srv *server) apply(c *container, r *pkRange, e *logEntry) {
	if r.progress == nil { // single-write: one origin, in order
		if e.it != nil {
			r.items[e.key] = e.it
		} else {
			delete(r.items, e.key)
		}
		r.lsn = e.olsn
		return
	}
	r.lsn++
	r.progress[e.origin] = max(r.progress[e.origin], e.olsn)
	srv.applyVersion(c, r, e)
}

// cloneRange is a new region's copy of r as it is now.
func cloneRange(r *pkRange) *pkRange {
	return &pkRange{id: r.id, min: r.min, max: r.max, parents: r.parents, lsn: r.lsn,
		items: maps.Clone(r.items), ts: r.ts, progress: slices.Clone(r.progress), heads: maps.Clone(r.heads)}
}

// replicate gives container c one copy of its ranges per region (views) and a replication log
// per physical partition. Callers hold mu.
func (srv *server) replicate(c *container) {
	if len(srv.regions) < 2 {
		return // nothing to replicate to
	}
	home := srv.home()
	c.views = make([]*container, len(srv.regions))
	for i := range srv.regions {
		if i == home {
			continue
		}
		v := &container{base: c}
		v.ranges = make([]*pkRange, len(c.ranges))
		for j, r := range c.ranges {
			v.ranges[j] = cloneRange(r)
		}
		c.views[i] = v
	}
	for j := range c.ranges {
		srv.linkCopies(c, j)
	}
}

// linkCopies gives the copies of c's j-th range a new, empty replication log.
func (srv *server) linkCopies(c *container, j int) {
	l := &replLog{c: c}
	for i := range srv.regions {
		r := c.ranges[j]
		if v := c.views[i]; v != nil {
			r = v.ranges[j]
		}
		r.copy = &rangeCopy{log: l, region: i}
		l.copies = append(l.copies, r)
	}
}

// view returns region idx's view of c (c itself in the home region or without replication),
// with the container's current metadata. Callers hold mu.
func (srv *server) view(c *container, idx int) *container {
	if c.views == nil || c.views[idx] == nil {
		return c
	}
	v := c.views[idx]
	ranges := v.ranges
	*v = *c
	v.base, v.views, v.ranges = c, nil, ranges
	return v
}

// catchUpAll applies every pending log entry of c's partitions to every region's copy.
func (srv *server) catchUpAll(c *container) {
	if c.views == nil {
		return
	}
	for j := range c.ranges {
		for _, r := range c.ranges[j].copy.log.copies {
			srv.catchUp(r, nil, true)
		}
	}
}

// root is the container that owns shared state (the document sequence) for c or its view.
func (c *container) root() *container {
	if c.base != nil {
		return c.base
	}
	return c
}

// ReplicationLag returns the replication lag in effect for writes reaching the named region
// (WithReplicationLag, SetReplicationLag). An unknown name is an error matching ErrUnknownRegion.
func (s *Server) ReplicationLag(region string) (time.Duration, error) {
	r, err := s.s.regionNamed("ReplicationLag", region)
	if err != nil {
		return 0, err
	}
	s.s.mu.Lock()
	defer s.s.mu.Unlock()
	return s.s.lags[r.index], nil
}

// SetReplicationLag sets how long writes made in other regions take to reach the named region,
// from now on (entries already pending become due by the new lag). A positive lag turns
// replication on for the whole server for good: every existing container is copied to every
// region as it is now. The write region of a single-write account receives no replicated writes,
// so its lag matters only once FailoverWriteRegion moves the writes elsewhere. An unknown name is
// an error matching ErrUnknownRegion, as in SetRegionDown.
func (s *Server) SetReplicationLag(region string, d time.Duration) error {
	r, err := s.s.regionNamed("SetReplicationLag", region)
	if err != nil {
		return err
	}
	srv := s.s
	srv.mu.Lock()
	defer srv.mu.Unlock()
	srv.lags[r.index] = max(d, 0)
	if d > 0 && !srv.replicating {
		srv.replicating = true
		for _, db := range srv.store.dbs {
			for _, c := range db.colls {
				srv.replicate(c)
			}
		}
	}
	return nil
}
