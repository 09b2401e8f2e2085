package cosmostest

import (
	"net/http"
	"slices"
	"strings"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Consistency (WithDefaultConsistency, x-ms-consistency-level) decides which region's copy a
// document read is served from and how stale it may be (replication.go):
//
//   - Strong: the home copy (the write region's), so a read is never stale anywhere; Strong is
//     refused with WithMultiWrite, as by the service.
//   - Bounded Staleness: the region's copy, first made to apply the writes beyond the staleness
//     bounds (WithBoundedStaleness).
//   - Session: the region's copy; with x-ms-session-token (one token per range, comma-separated),
//     a range the request touches (admit) whose copy has not reached the request's token for that
//     range (or for its nearest parent after a split) answers 404 with sub-status 1002
//     (ReadSessionNotAvailable), which azcosmos retries once in the write region (multi-write:
//     in the next regions). The service's replicas wait briefly for the session before answering
//     1002; cosmostest answers at once, so tests are deterministic. Without a token the copy is
//     read as it is (stale allowed).
//   - Consistent Prefix, Eventual: the region's copy as it is; a session token is ignored.
//
// Strong and Bounded Staleness reads cost twice the request units of the other levels. The
// request's level must not be stronger than the account's (400, with the service's message);
// an unknown level is 400 too. Writes carry the header without effect (the service ignores it on
// writes) but it is validated all the same.

// Sub-status of 404 when a region has not caught up with the request's session token.
const subReadSessionNotAvailable = wire.SubStatusReadSessionNotAvailable

// consistencyRank is a level's place in consistencyLevels (strongest first), -1 if unknown.
func consistencyRank(level string) int {
	return slices.IndexFunc(consistencyLevels, func(l string) bool { return strings.EqualFold(l, level) })
}

// readLevel validates the request's x-ms-consistency-level and sets rq.level to the level in
// effect (the account's when absent). Level names are matched ignoring case (unsure whether the
// service does).
func (srv *server) readLevel(rq *request) error {
	rq.level = srv.cfg.consistency
	h := rq.hdr(wire.HeaderConsistency)
	if h == "" {
		return nil
	}
	i := consistencyRank(h)
	if i < 0 {
		// Unsure: the wording of the service's message for an unknown level was not confirmed.
		return badRequest("Value '%s' specified for the header '%s' is invalid.", h, strings.ToLower(wire.HeaderConsistency))
	}
	if i < consistencyRank(srv.cfg.consistency) {
		return badRequest("ConsistencyLevel %s specified in the request is invalid when service is configured with consistency level %s. Ensure the request consistency level is not stronger than the service consistency level.", consistencyLevels[i], srv.cfg.consistency)
	}
	rq.level = consistencyLevels[i]
	return nil
}

// regionView returns the container a document request is served from: the view of the request's
// region (the home copy for Strong reads), caught up with the writes that are due for it. For a
// Session read it also keeps the request's session tokens for admit to check. Callers hold mu.
func (srv *server) regionView(rq *request, c *container) (*container, error) {
	read := !rq.IsWrite
	v := c
	if c.views != nil {
		if !read || rq.level != "Strong" {
			v = srv.view(c, rq.region.index)
		}
		var bs *staleness
		if read && rq.level == "BoundedStaleness" {
			bs = &srv.cfg.staleness
		}
		for _, r := range v.ranges {
			srv.catchUp(r, bs, false)
		}
	}
	if read && rq.level == "Session" {
		if h := rq.hdr(hdrSession); h != "" {
			ts, err := wire.ParseSessionTokens(h)
			if err != nil {
				return nil, badRequest("The session token provided '%s' is invalid.", h)
			}
			rq.tokens = ts
		}
	}
	return v, nil
}

// checkSession answers 404/1002 when copy r has not reached the request's token for it; callers
// hold mu.
func checkSession(rq *request, r *pkRange) error {
	req, ok := sessionFor(rq.tokens, r)
	if !ok || r.token().Covers(req) {
		return nil
	}
	return newError(http.StatusNotFound, subReadSessionNotAvailable, "The read session is not available for the input session token.")
}

// sessionFor is the request token for range r: the one naming r, else the one naming r's nearest
// parent (a token from before a split: the children continue the parent's LSN).
func sessionFor(tokens []wire.SessionToken, r *pkRange) (wire.SessionToken, bool) {
	for _, t := range tokens {
		if t.Range == r.id {
			return t, true
		}
	}
	for i := len(r.parents) - 1; i >= 0; i-- {
		for _, t := range tokens {
			if t.Range == r.parents[i] {
				return t, true
			}
		}
	}
	return wire.SessionToken{}, false
}

// readCharge doubles the charge of Strong and Bounded Staleness document reads, as the service
// charges reads with a quorum of two replicas.
func readCharge(rq *request) {
	if rq.ResourceType == ResourceDocument && !rq.IsWrite && (rq.level == "Strong" || rq.level == "BoundedStaleness") {
		rq.charge *= 2
	}
}
