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
	return sumMatching(s.s.seen, filter)
}

// sumMatching adds up the values of the keys that filter matches.
func sumMatching[V int | float64](m map[requestKey]V, filter RequestFilter) V {
	var sum V
	for k, v := range m {
		if filter.match(k) {
			sum += v
		}
	}
	return sum
}

// account adds a served request's charge to its key's total; callers hold mu.
func (srv *server) account(c *classification, charge float64) {
	if charge <= 0 {
		return
	}
	if srv.charged == nil {
		srv.charged = map[requestKey]float64{}
	}
	srv.charged[requestKey{c.Region, c.Operation, c.ResourceType, c.Database, c.Container}] += charge
}

// RequestCharge returns the request units the server charged (x-ms-request-charge) to the requests
// matching filter that its handlers served. It counts since the server started or since
// ResetRequests: what a container's workloads spent, measured where the budget is enforced.
// Throttled requests (charged 0) and injected faults add nothing.
func (s *Server) RequestCharge(filter RequestFilter) float64 {
	s.s.mu.Lock()
	defer s.s.mu.Unlock()
	return sumMatching(s.s.charged, filter)
}

// ResetRequests forgets the requests counted so far and their charges (RequestCharge).
func (s *Server) ResetRequests() {
	s.s.mu.Lock()
	s.s.seen = nil
	s.s.charged = nil
	s.s.mu.Unlock()
}
