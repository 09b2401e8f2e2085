package crosspartition

// token returns the continuation token of the position reached.
func (ex *execution) token() string {
	t := token{Bind: ex.bind, Skip: ex.skip, Take: ex.take}
	switch ex.shape {
	case shapePlain:
		t.Kind = kindPlain
	case shapeOrderBy:
		t.Kind = kindOrderBy
	default:
		t.Kind = kindNone
		return t.encode(ex.c.opts.TokenSigningKey, ex.c.identity)
	}
	switch {
	case ex.distinct == "Ordered" && ex.distLast != nil:
		t.Dist = packHashes([]uint64{*ex.distLast})
	case ex.distinct == "Unordered":
		t.Dist = packHashes(ex.dist.list())
	}
	if ex.shape == shapeOrderBy {
		t.Order = ex.orderToken()
		return t.encode(ex.c.opts.TokenSigningKey, ex.c.identity)
	}
	groups := map[*dropGroup]int{}
	for _, s := range ex.srcs {
		tr := s.tokenRange()
		if !tr.Done && s.drop != nil && len(s.drop.seen) > 0 {
			if groups[s.drop] == 0 {
				t.Groups = append(t.Groups, tokenGroup{Hashes: packHashes(s.drop.seen.list())})
				groups[s.drop] = len(t.Groups)
			}
			tr.Drop = groups[s.drop]
		}
		t.Ranges = append(t.Ranges, tr)
	}
	return t.encode(ex.c.opts.TokenSigningKey, ex.c.identity)
}

// tokenRange is the position of a plain query's source s: its backend continuation, and the rows of
// its page already consumed.
func (s *source) tokenRange() tokenRange {
	tr := tokenRange{ID: s.r.ID, Min: s.r.Min, Max: s.r.Max, Tok: s.pageTok}
	switch {
	case s.finished():
		tr.Done, tr.Tok = true, ""
	case s.open && s.pos >= len(s.buf):
		tr.Tok = s.next // the page is behind: the next one starts afresh
	case s.open:
		tr.Open, tr.N = true, s.pos
		if s.pos > 0 {
			hs := make([]uint64, s.pos)
			for i, r := range s.buf[:s.pos] {
				hs[i] = r.hash
			}
			tr.Seen = packHashes(hs)
		}
	case s.skipN > 0:
		tr.Open, tr.N, tr.Seen = true, s.skipN, packHashes(s.seen.list())
	}
	return tr
}
