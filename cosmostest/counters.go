package cosmostest

// RequestFilter selects requests for Requests. Zero fields match anything.
type RequestFilter struct {
	Region       string       // region name, compared like the SDK does (case and spaces ignored)
	Operation    Operation    // e.g. OpRead
	ResourceType ResourceType // e.g. ResourceDocument; "" matches any (use Operation OpReadAccount for GET /)
	Database     string
	Container    string
}

func (f RequestFilter) match(c *classification) bool {
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
	for _, c := range s.s.seen {
		if filter.match(c) {
			n++
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
