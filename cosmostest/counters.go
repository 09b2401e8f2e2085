package cosmostest

// RequestFilter selects requests for Requests. Zero fields match anything.
type RequestFilter struct {
	Region       string       // region name, compared like the SDK does (case and spaces ignored)
	Operation    Operation    // e.g. OpReadItem
	ResourceType ResourceType // e.g. ResourceDocument; "" matches any (use Operation OpReadAccount for GET /)
	Database     string
	Container    string
}

// requestKey is what the server counts requests by; the counts are bounded by the number of
// distinct keys, not the number of requests.
type requestKey struct {
	Region       string
	Operation    Operation
	ResourceType ResourceType
	Database     string
	Container    string
}

// count records a request; callers hold mu.
func (srv *server) count(c *classification) {
	if srv.seen == nil {
		srv.seen = map[requestKey]int{}
	}
	srv.seen[requestKey{c.Region, c.Operation, c.ResourceType, c.Database, c.Container}]++
}

func (f RequestFilter) match(c requestKey) bool {
	return (f.Region == "" || canonicalRegion(f.Region) == canonicalRegion(c.Region)) &&
		(f.Operation == "" || f.Operation == c.Operation) &&
		(f.ResourceType == "" || f.ResourceType == c.ResourceType) &&
		(f.Database == "" || f.Database == c.Database) &&
		(f.Container == "" || f.Container == c.Container)
}

// Requests returns how many requests that passed authentication the server has seen that match
// filter, including ones answered with an error or an injected fault.
func (s *Server) Requests(filter RequestFilter) int {
	s.s.mu.Lock()
	defer s.s.mu.Unlock()
	n := 0
	for k, v := range s.s.seen {
		if filter.match(k) {
			n += v
		}
	}
	return n
}

// ResetRequests forgets the requests counted so far.
func (s *Server) ResetRequests() {
	s.s.mu.Lock()
	s.s.seen = nil
	s.s.mu.Unlock()
}
