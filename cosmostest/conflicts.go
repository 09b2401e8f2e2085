package cosmostest

import (
	"math"
	"slices"
	"strings"
)

// Multi-write conflict resolution, as the service documents it ("Conflict types and resolution
// policies when using multiple write regions"). Every write records the versions it supersedes:
// every head of the item in its region's copy when it was written (the item as the region saw
// it, and any version that lost a conflict there). A copy keeps per item the heads, the versions
// no known write supersedes; when it applies a replicated write that leaves two or more heads,
// the writes were concurrent (insert: both regions created the item; replace: both changed it;
// delete: one deleted what the other changed) and the container's policy picks the version the
// copy serves. The log applies writes in an order that respects what each writer had seen, so
// once every copy has applied every write, all hold the same heads and serve the same winner.
//
//   - A delete always wins over an insert or a replace, whatever the resolution path says.
//   - Otherwise, under LastWriterWins the version with the higher number at the container's
//     conflictResolutionPath (default /_ts) wins; a missing or non-numeric value is lower than
//     every number. The service says only that "the system determines the winner" on a tie:
//     here the later write (the higher _etag, which the server issues in write order) wins, so
//     every region picks the same version.
//   - Custom mode: without a merge procedure the service writes the conflict to the conflicts
//     feed. Which version it commits meanwhile is not documented; cosmostest keeps the same winner
//     as LastWriterWins on /_ts (unsure) and records the loser with recordConflict. Merge
//     procedures (stored procedures) are not run.
//
// A losing write is recorded when it loses on arrival in the copy that receives it. With two
// regions that is exactly once per losing version: the winner was either already in the receiving
// copy, or written there later, which supersedes the loser (no conflict). With three or more
// regions, a version can lose in several copies; the conflicts feed deduplicates.
//
// Deletes leave a head (a tombstone) so that a concurrent update cannot bring the item back; on
// multi-write accounts with replication the tombstones of deleted items are kept for the life of
// the container.

// conflictPolicy is a container's conflictResolutionPolicy.
type conflictPolicy struct {
	custom bool
	path   []string // the LWW path's segments
}

func conflictPolicyOf(c *container) conflictPolicy {
	p := conflictPolicy{path: []string{"_ts"}}
	m, _ := c.props["conflictResolutionPolicy"].(map[string]any)
	if mode, _ := m["mode"].(string); strings.EqualFold(mode, "Custom") {
		p.custom = true
		return p
	}
	if path, _ := m["conflictResolutionPath"].(string); strings.HasPrefix(path, "/") && len(path) > 1 {
		p.path = strings.Split(path[1:], "/")
		for i, s := range p.path {
			p.path[i] = unescapePathSegment(s)
		}
	}
	return p
}

// value is v's number at the policy's path, -Inf when missing or not a number.
func (p conflictPolicy) value(v *item) float64 {
	if len(p.path) == 1 && p.path[0] == "_ts" {
		return float64(v.ts)
	}
	var cur any = v.doc
	for _, seg := range p.path {
		m, ok := cur.(map[string]any)
		if !ok {
			return math.Inf(-1)
		}
		cur = m[seg]
	}
	switch n := cur.(type) {
	case float64:
		return n
	case int64:
		return float64(n)
	}
	return math.Inf(-1)
}

// wins reports whether version a beats version b.
func (p conflictPolicy) wins(a, b *item) bool {
	va, vb := p.value(a), p.value(b)
	if va != vb {
		return va > vb
	}
	return a.etag > b.etag
}

// version is one head of an item: a stored version, or a delete (it nil).
type version struct {
	tag string
	it  *item
}

// headSet is the heads of one item in a copy, when they are not just the stored item.
type headSet struct {
	pk []any
	vs []version
}

// headsOf is the heads of key in copy r: the recorded set, else the stored live version.
func (srv *server) headsOf(c *container, r *pkRange, key string) []version {
	if h := r.heads[key]; h != nil {
		return h.vs
	}
	if it := srv.lookup(c, r, key); it != nil {
		return []version{{tag: it.etag, it: it}}
	}
	return nil
}

// setHeads records vs as key's heads in r, or forgets them when the stored item says it all.
func (r *pkRange) setHeads(key string, pk []any, vs []version) {
	if len(vs) == 1 && vs[0].it != nil {
		delete(r.heads, key)
		return
	}
	if r.heads == nil {
		r.heads = map[string]*headSet{}
	}
	r.heads[key] = &headSet{pk: pk, vs: vs}
}

// localHeads tags a local write e to copy r (made after e.prev was read) with the versions it
// supersedes, every head of the item here, and makes it the item's only head.
func (srv *server) localHeads(r *pkRange, e *logEntry) {
	e.tag = versionTag(e.it)
	if e.it == nil {
		e.tag = srv.store.nextETag()
	}
	if h := r.heads[e.key]; h != nil {
		for _, v := range h.vs {
			e.prevs = append(e.prevs, v.tag)
		}
	} else if e.prev != "" {
		e.prevs = []string{e.prev}
	}
	r.setHeads(e.key, e.pk, []version{{tag: e.tag, it: e.it}})
}

// applyVersion applies replicated write e to copy r: e replaces the heads it supersedes, and
// the copy serves the policy's winner among the heads left.
func (srv *server) applyVersion(c *container, r *pkRange, e *logEntry) {
	hs := srv.headsOf(c, r, e.key)
	vs := make([]version, 0, len(hs)+1)
	for _, h := range hs {
		if !slices.Contains(e.prevs, h.tag) {
			vs = append(vs, h)
		}
	}
	vs = append(vs, version{tag: e.tag, it: e.it})
	r.setHeads(e.key, e.pk, vs)
	p := conflictPolicyOf(c)
	w := p.resolve(c, vs, srv.now().Unix())
	switch cur := r.items[e.key]; {
	case w == nil:
		delete(r.items, e.key)
	case cur == nil || cur.etag != w.etag:
		v := *w
		v.lsn = r.lsn
		r.items[e.key] = &v
	}
	if len(vs) > 1 && e.it != nil && w != e.it {
		srv.lose(c, r, e, p)
	}
}

// resolve returns the version a copy serves among heads vs: none (nil) when one is a delete or
// every version expired, else the policy's winner among the live ones.
func (p conflictPolicy) resolve(c *container, vs []version, now int64) *item {
	var w *item
	for _, v := range vs {
		if v.it == nil {
			return nil
		}
		if c.expired(v.it, now) {
			continue
		}
		if w == nil || p.wins(v.it, w) {
			w = v.it
		}
	}
	return w
}

// lose records incoming write e, which lost, for the conflicts feed in custom mode.
func (srv *server) lose(c *container, r *pkRange, e *logEntry, p conflictPolicy) {
	if !p.custom || e.it == nil {
		return
	}
	op := "replace"
	if len(e.prevs) == 0 {
		op = "create"
	}
	rec := conflictRecord{op: op, rid: e.it.rid, key: e.key, pk: e.pk, id: e.id, loser: e.it, lsn: r.lsn}
	srv.recordConflict(c, rec)
	if srv.onConflict != nil {
		srv.onConflict(c, rec)
	}
}
