package consistency

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// store holds the merged session tokens of each container (keyed by account host and resource
// link), at most max containers: adding one more evicts the least recently used. A container's
// tokens are one per physical partition it has answered from, so its size follows the
// container's partition count; the whole store is bounded by max × that.
type store struct {
	max  int
	tick atomic.Uint64
	mu   sync.RWMutex
	m    map[string]*containerTokens
}

// containerTokens is one container's merged tokens. tokens and header are replaced, never
// modified, under store.mu.
type containerTokens struct {
	tokens []wire.SessionToken
	header string   // wire.FormatSessionTokens(tokens)
	value  []string // []string{header}, len = cap = 1: the header's value, shared read-only by requests
	used   atomic.Uint64
}

func newStore(maxContainers int) *store {
	return &store{max: maxContainers, m: make(map[string]*containerTokens)}
}

// get returns the container's tokens and their header form; nil and "" when it has none. The
// slice must not be modified.
func (s *store) get(key string) ([]wire.SessionToken, string) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.m[key]
	if e == nil {
		return nil, ""
	}
	e.used.Store(s.tick.Add(1))
	return e.tokens, e.header
}

// value returns the container's header value as a one-element slice to put into a request's
// http.Header (saving the slice http.Header.Set allocates), nil when it has none. The slice is
// shared: it is never written to (len = cap, so an Add reallocates), only replaced.
func (s *store) value(key string) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if e := s.m[key]; e != nil {
		return e.value
	}
	return nil
}

// merge merges ts into the container's tokens.
func (s *store) merge(key string, ts []wire.SessionToken) {
	// Most responses (reads) bring nothing newer: check under the read lock first.
	s.mu.RLock()
	e := s.m[key]
	known := e != nil && holds(e.tokens, ts)
	s.mu.RUnlock()
	if known {
		e.used.Store(s.tick.Add(1))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e = s.m[key]
	if e == nil {
		if len(s.m) >= s.max {
			s.evictLocked()
		}
		e = &containerTokens{}
		s.m[key] = e
	}
	merged := wire.MergeSessionTokenLists(e.tokens, ts)
	e.tokens, e.header = merged, wire.FormatSessionTokens(merged)
	e.value = []string{e.header}
	e.used.Store(s.tick.Add(1))
}

// holdsRaw reports whether tok, one range's token as the service wrote it, is byte for byte one
// of the tokens the container holds (its header): merging it would change nothing. It lets the
// policy skip parsing the token of most reads; when it reports false the token is parsed and
// merged as usual.
func (s *store) holdsRaw(key, tok string) bool {
	if strings.IndexByte(tok, ',') >= 0 {
		return false
	}
	s.mu.RLock()
	e := s.m[key]
	var h string
	if e != nil {
		h = e.header
	}
	s.mu.RUnlock()
	for seg := range strings.SplitSeq(h, ",") {
		if seg != "" && seg == tok {
			e.used.Store(s.tick.Add(1))
			return true
		}
	}
	return false
}

// holds reports whether merging ts into have would change nothing.
func holds(have, ts []wire.SessionToken) bool {
	for _, t := range ts {
		i := slices.IndexFunc(have, func(h wire.SessionToken) bool { return h.Range == t.Range })
		if i < 0 {
			return false
		}
		if h := have[i]; (h.Simple && !t.Simple) || h.Version < t.Version || !h.Covers(t) || h.GlobalLSN < t.GlobalLSN ||
			len(h.Regional) < len(t.Regional) {
			return false
		}
	}
	return true
}

// evictLocked drops the least recently used container (a scan: it runs only when a new
// container arrives at a full store).
func (s *store) evictLocked() {
	var oldest string
	var at uint64
	first := true
	for k, e := range s.m {
		if u := e.used.Load(); first || u < at {
			oldest, at, first = k, u, false
		}
	}
	delete(s.m, oldest)
}

// forget drops the container key, or with prefix every container whose key starts with key (a
// deleted container or database: a new container with the same name starts its LSNs again).
func (s *store) forget(key string, prefix bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !prefix {
		delete(s.m, key)
		return
	}
	for k := range s.m {
		if strings.HasPrefix(k, key) {
			delete(s.m, k)
		}
	}
}
