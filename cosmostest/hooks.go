package cosmostest

// intercept runs for every authenticated request after it was classified and counted, outside
// srv.mu, before dispatch. It is the seam for fault injection (InjectFault, faults.go): the first
// installed fault that matches and fires may delay the request, drop the connection, or answer
// with an error through rq.fail; intercept returns true when the request needs no further
// serving. Rules match on rq.classification (Region, Operation, ResourceType, Database,
// Container, and the physical partition: the x-ms-documentdb-partitionkeyrangeid header or the
// range of the partition key header).
func (srv *server) intercept(rq *request) bool {
	srv.mu.Lock()
	h := srv.pick(rq)
	srv.mu.Unlock()
	if h == nil {
		return false
	}
	return srv.applyFault(rq, h)
}

// admit is called by every data-plane handler, with srv.mu held, as soon as it knows the
// physical partition r of container c that the request touches and before any state changes
// (point operations: the range of the partition key; queries: each range in scope). With
// WithThroughputLimits it returns a 429 statusError with sub-status 3200 and an
// x-ms-retry-after-ms header when r has spent its share of the offer's RU/s for the current
// second of the server clock; otherwise it remembers r so that spend charges it with the
// request's final rq.charge (throughput.go).
//
// It also records r as a range the request touched: a response (or refusal) that concerns exactly
// one physical partition names it in x-ms-documentdb-partitionkeyrangeid (writeCommon).
func (srv *server) admit(rq *request, c *container, r *pkRange) error {
	rq.touched = append(rq.touched, r)
	if rq.tokens != nil {
		if err := checkSession(rq, r); err != nil {
			return err
		}
	}
	if !srv.cfg.throughput || rq.direct {
		return nil
	}
	return srv.throttle(rq, c, r)
}
