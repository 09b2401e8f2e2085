package wire

import (
	"cmp"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// SessionToken is one physical partition's session token as the service writes it in
// x-ms-session-token: "<rangeId>:<version>#<globalLSN>" on a single-write account
// ("0:-1#12"), with one "#<regionId>=<localLSN>" segment per write region on a multi-write account
// ("0:-1#40#0=25#1=15", the vector session token of the .NET and Java SDKs). The older simple
// form "<rangeId>:<lsn>" (no '#') parses with Simple set. A request may carry several, one per
// range, joined by commas (ParseSessionTokens).
//
// It is the one home of the token's format: cosmostest writes and checks tokens with it, and the
// client side merges them with it.
type SessionToken struct {
	Range     string      // the partition key range id
	Version   int64       // the partition's configuration version (-1 from the gateway)
	GlobalLSN int64       // the replica's LSN
	Regional  []RegionLSN // multi-write: progress per write region, sorted by Region
	Simple    bool        // the "<rangeId>:<lsn>" form
}

// RegionLSN is one write region's progress in a vector session token.
type RegionLSN struct {
	Region uint32
	LSN    int64
}

// ErrSessionToken reports a session token that is not in the service's format.
var ErrSessionToken = errors.New("malformed session token")

// maxSessionTokenLen bounds what is parsed: a token comes from a header or from an end user.
const maxSessionTokenLen = 16 << 10

// ParseSessionToken parses one range's token ("<rangeId>:<version>#<globalLSN>[#<r>=<lsn>...]").
func ParseSessionToken(s string) (SessionToken, error) {
	id, rest, ok := strings.Cut(s, ":")
	if !ok || !ValidRangeID(id) || rest == "" || len(s) > maxSessionTokenLen {
		return SessionToken{}, ErrSessionToken
	}
	t := SessionToken{Range: id}
	if !strings.Contains(rest, "#") {
		lsn, err := strconv.ParseInt(rest, 10, 64)
		if err != nil || lsn < -1 {
			return SessionToken{}, ErrSessionToken
		}
		t.GlobalLSN, t.Simple = lsn, true
		return t, nil
	}
	// "<version>#<globalLSN>[#<r>=<lsn>...]", read without splitting into a slice.
	ver, rest, _ := strings.Cut(rest, "#")
	glob, regs, hasRegs := strings.Cut(rest, "#")
	v, err1 := strconv.ParseInt(ver, 10, 64)
	g, err2 := strconv.ParseInt(glob, 10, 64)
	if err1 != nil || err2 != nil || v < -1 || g < -1 {
		return SessionToken{}, ErrSessionToken
	}
	t.Version, t.GlobalLSN = v, g
	if hasRegs {
		t.Regional = make([]RegionLSN, 0, strings.Count(regs, "#")+1)
		for seg := range strings.SplitSeq(regs, "#") {
			rs, ls, ok := strings.Cut(seg, "=")
			r, err1 := strconv.ParseUint(rs, 10, 32)
			l, err2 := strconv.ParseInt(ls, 10, 64)
			if !ok || err1 != nil || err2 != nil || l < -1 {
				return SessionToken{}, ErrSessionToken
			}
			t.Regional = append(t.Regional, RegionLSN{Region: uint32(r), LSN: l})
		}
	}
	slices.SortFunc(t.Regional, compareRegion)
	for i := 1; i < len(t.Regional); i++ {
		if t.Regional[i].Region == t.Regional[i-1].Region {
			return SessionToken{}, ErrSessionToken
		}
	}
	return t, nil
}

// String writes the token in the service's format.
func (t SessionToken) String() string {
	b := make([]byte, 0, 32)
	b = append(b, t.Range...)
	b = append(b, ':')
	if t.Simple {
		return string(strconv.AppendInt(b, t.GlobalLSN, 10))
	}
	b = strconv.AppendInt(b, t.Version, 10)
	b = append(b, '#')
	b = strconv.AppendInt(b, t.GlobalLSN, 10)
	for _, r := range t.Regional {
		b = append(b, '#')
		b = strconv.AppendUint(b, uint64(r.Region), 10)
		b = append(b, '=')
		b = strconv.AppendInt(b, r.LSN, 10)
	}
	return string(b)
}

// regional returns the region's LSN and whether the token names the region.
func (t SessionToken) regional(region uint32) (int64, bool) {
	for _, r := range t.Regional {
		if r.Region == region {
			return r.LSN, true
		}
	}
	return 0, false
}

// Merge returns the newer of two tokens of the same range as the SDKs merge them: the higher
// version, the higher global LSN, and per write region the higher LSN (a region only one side
// names is kept). Tokens of different ranges are not merged: t is returned. It runs in time linear
// in the number of regions (both lists are sorted by region, as ParseSessionToken leaves them).
func (t SessionToken) Merge(o SessionToken) SessionToken {
	if t.Range != o.Range {
		return t
	}
	out := SessionToken{Range: t.Range, Version: max(t.Version, o.Version), GlobalLSN: max(t.GlobalLSN, o.GlobalLSN),
		Simple: t.Simple && o.Simple}
	a, b := sortedRegions(t.Regional), sortedRegions(o.Regional)
	if len(a)+len(b) == 0 {
		return out
	}
	out.Regional = make([]RegionLSN, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0].Region < b[0].Region:
			out.Regional, a = append(out.Regional, a[0]), a[1:]
		case a[0].Region > b[0].Region:
			out.Regional, b = append(out.Regional, b[0]), b[1:]
		default:
			out.Regional = append(out.Regional, RegionLSN{Region: a[0].Region, LSN: max(a[0].LSN, b[0].LSN)})
			a, b = a[1:], b[1:]
		}
	}
	out.Regional = append(append(out.Regional, a...), b...)
	return out
}

func compareRegion(a, b RegionLSN) int { return cmp.Compare(a.Region, b.Region) }

// sortedRegions returns rs sorted by region: rs itself when it already is (the parser's output),
// else a sorted copy.
func sortedRegions(rs []RegionLSN) []RegionLSN {
	if slices.IsSortedFunc(rs, compareRegion) {
		return rs
	}
	rs = slices.Clone(rs)
	slices.SortStableFunc(rs, compareRegion)
	return rs
}

// Covers reports whether a replica whose progress is t has seen every write the request token
// req asks for: on a multi-write token every region req names must be at least as far in t; on a
// single-write token t's global LSN must be at least req's.
func (t SessionToken) Covers(req SessionToken) bool {
	if len(req.Regional) > 0 {
		for _, r := range req.Regional {
			if l, ok := t.regional(r.Region); !ok || l < r.LSN {
				return false
			}
		}
		return true
	}
	return t.GlobalLSN >= req.GlobalLSN
}

// ParseSessionTokens parses a request's x-ms-session-token: one token per range, joined by
// commas. A range named twice keeps the merge of both. Time and memory are linear in len(s) (up to
// the sort of the ranges): the tokens are parsed into one slice, sorted by range and merged in place.
func ParseSessionTokens(s string) ([]SessionToken, error) {
	if s == "" || len(s) > maxSessionTokenLen {
		return nil, ErrSessionToken
	}
	out := make([]SessionToken, 0, strings.Count(s, ",")+1)
	for part := range strings.SplitSeq(s, ",") {
		t, err := ParseSessionToken(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	slices.SortFunc(out, compareRange) // Merge is commutative: the order of equal ranges does not matter
	return mergeAdjacent(out), nil
}

func compareRange(a, b SessionToken) int { return strings.Compare(a.Range, b.Range) }

// mergeAdjacent merges, in place, the runs of tokens of the same range in a slice sorted by range.
func mergeAdjacent(ts []SessionToken) []SessionToken {
	w := 0
	for i := range ts {
		if w > 0 && ts[w-1].Range == ts[i].Range {
			ts[w-1] = ts[w-1].Merge(ts[i])
			continue
		}
		ts[w] = ts[i]
		w++
	}
	clear(ts[w:])
	return ts[:w]
}

// MergeSessionToken merges t into the tokens of a container (one per range, sorted by range id)
// and returns the result; ts is not modified. Merging many tokens one by one copies ts each time:
// use MergeSessionTokenLists to merge a list.
func MergeSessionToken(ts []SessionToken, t SessionToken) []SessionToken {
	i, found := slices.BinarySearchFunc(ts, t.Range, func(e SessionToken, id string) int { return strings.Compare(e.Range, id) })
	out := slices.Clone(ts)
	if found {
		out[i] = out[i].Merge(t)
		return out
	}
	return slices.Insert(out, i, t)
}

// MergeSessionTokenLists merges two containers' token lists (each one per range, sorted by range
// id, as ParseSessionTokens and MergeSessionToken return them) in time linear in their lengths and
// returns a new list; neither input is modified. An input that is not sorted is sorted on a copy.
func MergeSessionTokenLists(a, b []SessionToken) []SessionToken {
	if !slices.IsSortedFunc(a, compareRange) {
		a = slices.Clone(a)
		slices.SortStableFunc(a, compareRange)
		a = mergeAdjacent(a)
	}
	if !slices.IsSortedFunc(b, compareRange) {
		b = slices.Clone(b)
		slices.SortStableFunc(b, compareRange)
		b = mergeAdjacent(b)
	}
	out := make([]SessionToken, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		switch c := strings.Compare(a[0].Range, b[0].Range); {
		case c < 0:
			out, a = append(out, a[0]), a[1:]
		case c > 0:
			out, b = append(out, b[0]), b[1:]
		default:
			out = append(out, a[0].Merge(b[0]))
			a, b = a[1:], b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// FormatSessionTokens joins tokens with commas, as a request carries several ranges' tokens.
func FormatSessionTokens(ts []SessionToken) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.String()
	}
	return strings.Join(parts, ",")
}
