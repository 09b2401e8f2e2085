package crosspartition

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"

	"github.com/cosmoskit/cosmoskit-go/internal/epk"
)

// A streaming ORDER BY resumes from values, as the .NET SDK's OrderByCrossPartitionQueryPipelineStage
// does (OrderByContinuationToken: orderByItems, rid, skipCount, filter), never from backend
// continuations and counts: those name positions in pages that writes between two pages move, so
// rows that existed throughout were skipped or returned twice.
//
// The merge is a total order: ORDER BY values, then the range in EPK order (ties go to the range
// earlier in EPK order), then the range's own order of tied rows (the service's: by _rid). The token
// holds the last row the merge consumed: its orderByItems, its _rid, how many rows with both were
// consumed (a JOIN gives one document several rows) and the EPK bounds of its range. Every range is
// then queried afresh, with the plan's rewritten query and its filter placeholder set to
//
//   - for a range before that range: the rows strictly after the values (its tied rows were all
//     consumed before the merge took one from a later range);
//   - for that range (or its children, if it split): the rows at or after the values, dropping the
//     tied rows up to that _rid in the service's tie order;
//   - for a range after it: the rows at or after the values (none of its tied rows was consumed).
//
// So a row that existed throughout the read is returned once and in order whatever was written
// between pages, and a resumed page costs what a fresh one does. The service orders tied rows by
// _rid (ascending or, for DESC on older backends, descending: .NET's reverseRidEnabled): the
// direction is learnt from the rows (two tied rows of one range in a row) and kept in the token.
// Until it is known the range that returned the last row had returned one tied row, so only that
// _rid is dropped.

// orderResume is the ORDER BY part of a token.
type orderResume struct {
	Items json.RawMessage `json:"l"`           // orderByItems of the last row consumed
	Rid   string          `json:"r,omitempty"` // its _rid ("" when the rows carry none)
	N     int             `json:"n"`           // rows with these values and this _rid consumed (1; more with a JOIN)
	Min   string          `json:"a"`           // EPK bounds of the range that returned it
	Max   string          `json:"b"`
	Dir   int             `json:"d,omitempty"` // order of tied rows by _rid: 1 ascending, -1 descending, 0 unknown
	// Seen is, when the rows carry no _rid (FROM x IN c.items), the content hashes of the rows
	// tied with Items that its range returned.
	Seen string `json:"s,omitempty"`
}

// maxRidLen bounds a token's _rid (the service's are 24 characters or less).
const maxRidLen = 64

func (o *orderResume) validate() error {
	if _, err := parseItems(o.Items); err != nil {
		return bad("has malformed order-by values")
	}
	if _, err := hashes(o.Seen); err != nil {
		return err
	}
	if o.Seen != "" && o.Rid != "" {
		return bad("has a malformed order-by position")
	}
	if len(o.Rid) > maxRidLen || o.N < 1 || o.N > defaultMaxTokenHashes || o.Dir < -1 || o.Dir > 1 {
		return bad("has a malformed order-by position")
	}
	for i := 0; i < len(o.Rid); i++ {
		if c := o.Rid[i]; c <= ' ' || c > '~' || c == '"' || c == '\\' {
			return bad("has a malformed order-by position")
		}
	}
	if !validEPK(o.Min) || !validEPK(o.Max) || isEnd(o.Min) && o.Min != "" || !isEnd(o.Max) && epk.Compare(o.Min, o.Max) >= 0 {
		return bad("has a malformed range")
	}
	return nil
}

// position is where a range resumes: after keys (strict), or at keys dropping the tied rows up to
// rid (ties) or none of them.
type position struct {
	keys   []any
	raw    json.RawMessage
	strict bool
	ties   bool     // drop the rows tied with keys up to rid, in the service's tie order
	rid    []byte   // _rid of the last row consumed among them
	n      int      // rows with keys and rid consumed
	seen   []uint64 // rows without a _rid: the content hashes of the tied rows consumed
}

// resumeOrderBy makes the sources of a token's ORDER BY position: every range the query targets,
// each starting from the position its place relative to the last row's range gives it.
func (ex *execution) resumeOrderBy(o *orderResume, all []pkRange) error {
	keys, _ := parseItems(o.Items)
	if len(keys) != len(ex.desc) {
		return bad("has order-by values of another query")
	}
	ex.ridDir = o.Dir
	ex.resumed = o
	rid := []byte(o.Rid)
	if o.Rid == "" {
		rid = nil
	}
	seen, _ := hashes(o.Seen)
	for _, r := range targets(all, ex.targets) {
		p := &position{keys: keys, raw: o.Items}
		s := &source{r: r}
		switch {
		case o.Min != "" && !isEnd(r.Max) && epk.Compare(r.Max, o.Min) <= 0:
			p.strict = true // before the last row's range
		case !isEnd(o.Max) && epk.Compare(r.Min, o.Max) >= 0:
			// after it: every tied row is still to come
		case epk.Compare(r.Min, o.Min) >= 0 && (isEnd(o.Max) || !isEnd(r.Max) && epk.Compare(r.Max, o.Max) <= 0):
			// the last row's range or one of its children
			p.ties, p.rid, p.n, p.seen = true, rid, o.N, seen
			s.last, s.lastRaw, s.lastRid, s.lastN = keys, o.Items, rid, o.N
			if rid == nil {
				s.lastSeen = multisetOf(seen)
			}
		default:
			// A range that also covers others (partitions merged since): its tied rows are all
			// read again, so that none is lost (some may be returned twice).
		}
		s.setFrom(p)
		ex.srcs = append(ex.srcs, s)
	}
	return nil
}

// dropResumed drops the rows at the head of s that its position says were consumed.
func (ex *execution) dropResumed(s *source) {
	p := s.from
	for !s.passed && s.pos < len(s.buf) {
		r := &s.buf[s.pos]
		c := compareKeys(r.keys, p.keys, ex.desc)
		consumed := c < 0 || c == 0 && (p.strict || p.ties && ex.tieConsumed(s, r))
		if !consumed {
			s.passed = true
			return
		}
		s.pos++
	}
}

// setFrom makes s resume from p.
func (s *source) setFrom(p *position) {
	s.from, s.fromN, s.fromSeen = p, p.n, nil
	if p.rid == nil && len(p.seen) > 0 {
		s.fromSeen = multisetOf(p.seen)
	}
}

// tieConsumed reports whether r, tied with s's position, was consumed before the position.
func (ex *execution) tieConsumed(s *source, r *row) bool {
	p := s.from
	if r.rid == nil || p.rid == nil {
		// Rows without a _rid: by content (of two equal rows, only as many as were consumed).
		return r.rid == nil && p.rid == nil && s.fromSeen.take(r.hash)
	}
	if bytes.Equal(r.rid, p.rid) {
		if s.fromN > 0 {
			s.fromN--
			return true
		}
		return false
	}
	if ex.ridDir == 0 {
		return false
	}
	a, ok1 := ridDocument(r.rid)
	b, ok2 := ridDocument(p.rid)
	return ok1 && ok2 && ex.ridDir*cmp.Compare(a, b) < 0
}

// consumeOrdered records r, just consumed from s, as s's (and the query's) last row, and learns the
// service's tie order from two tied rows of one range.
func (ex *execution) consumeOrdered(s *source, r *row) {
	ex.lastSrc = s
	if s.last != nil && compareKeys(r.keys, s.last, ex.desc) == 0 {
		if r.rid == nil {
			if s.lastSeen == nil {
				s.lastSeen = multiset{}
			}
			s.lastSeen.add(r.hash)
			s.lastRid = nil
			return
		}
		if bytes.Equal(r.rid, s.lastRid) {
			s.lastN++
			return
		}
		if ex.ridDir == 0 {
			a, ok1 := ridDocument(r.rid)
			b, ok2 := ridDocument(s.lastRid)
			if ok1 && ok2 && a != b {
				ex.ridDir = cmp.Compare(a, b)
			}
		}
		s.lastRid, s.lastN = r.rid, 1
		return
	}
	s.last, s.lastRaw, s.lastRid, s.lastN = r.keys, r.kraw, r.rid, 1
	if r.rid == nil {
		// s.lastSeen is the source's own (children and tokens copy it): reuse a small one's storage.
		if len(s.lastSeen) > 8 || s.lastSeen == nil {
			s.lastSeen = multiset{r.hash: 1}
		} else {
			clear(s.lastSeen)
			s.lastSeen[r.hash] = 1
		}
	}
}

// splitOrdered gives the children of the gone source s the position s had reached.
func splitOrdered(s *source, kids []*source) {
	for _, k := range kids {
		switch {
		case s.last != nil:
			p := &position{keys: s.last, raw: s.lastRaw, ties: true, rid: s.lastRid, n: s.lastN}
			if s.lastRid == nil {
				p.seen = s.lastSeen.list()
				k.lastSeen = s.lastSeen.clone()
			}
			k.last, k.lastRaw, k.lastRid, k.lastN = s.last, s.lastRaw, s.lastRid, s.lastN
			k.setFrom(p)
		case s.from != nil:
			k.setFrom(s.from)
		}
	}
}

// orderToken is the ORDER BY position of the token of ex.
func (ex *execution) orderToken() *orderResume {
	s := ex.lastSrc
	if s == nil {
		if ex.resumed == nil {
			return nil
		}
		o := *ex.resumed
		o.Dir = ex.ridDir
		return &o
	}
	o := &orderResume{Items: s.lastRaw, Rid: string(s.lastRid), N: s.lastN, Min: s.r.Min, Max: s.r.Max, Dir: ex.ridDir}
	if s.lastRid == nil {
		o.Seen, o.N = packHashes(s.lastSeen.list()), 1
	}
	return o
}

// ridDocument returns the document part of a _rid: bytes 8 to 16, little-endian, as the .NET
// SDK's ResourceId.Document reads them (the service writes '/' as '-' in some places).
func ridDocument(rid []byte) (uint64, bool) {
	if len(rid) == 0 || len(rid) > maxRidLen {
		return 0, false
	}
	var src [maxRidLen]byte
	n := copy(src[:], rid)
	for i := range n {
		if src[i] == '-' {
			src[i] = '/'
		}
	}
	var dst [maxRidLen]byte
	m, err := base64.StdEncoding.Decode(dst[:], src[:n])
	if err != nil || m < 16 {
		return 0, false
	}
	return binary.LittleEndian.Uint64(dst[8:16]), true
}
