package cosmostest

// intercept runs for every authenticated request after it was classified and counted, outside
// srv.mu, before dispatch. It is the seam for fault injection (InjectFault): a matching rule may
// sleep (delay), hijack and close the connection (dropped connection), or write an error response
// with rq.fail; it returns true when it has answered the request. Rules match on
// rq.classification (Region, Operation, ResourceType, Database, Container, PKRangeID from the
// x-ms-documentdb-partitionkeyrangeid header). Phase 1 has no rules.
func (srv *server) intercept(rq *request) bool {
	_ = rq
	return false
}

// admit is called by every data-plane handler, with srv.mu held, as soon as it knows the
// physical partition r of container c that the request touches and before any state changes
// (point operations: the range of the partition key; queries: each range in scope). It is the
// seam for throughput enforcement (WithThroughputLimits): return a 429 statusError with
// sub-status 3200 and an x-ms-retry-after-ms header when r has spent its share of the offer's
// RU/s for the current second (charge with the ru.go model after the handler ran: rq.charge).
// Phase 1 admits everything.
func (srv *server) admit(rq *request, c *container, r *pkRange) error {
	_, _, _ = rq, c, r
	return nil
}
