package cosmostest

import (
	"net/http"
	"strings"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// sentHeaders is every header cosmostest sends, spelled as the service sends it
// (wire.ServiceSpelling of internal/wire's names, the one home of header names): x-ms-*, etag and
// lsn in lower case, the standard HTTP headers in their usual case. Responses are written with
// these keys assigned into the header map (http.Header.Set would canonicalise them to
// "X-Ms-Continuation", "Etag"), so a client that copies response headers into a plain map and
// looks them up by the service's spelling finds them. TestHeaderSpelling checks every response of
// every operation against this table.
var sentHeaders = func() []string {
	names := []string{
		wire.HeaderContentType, wire.HeaderContentLen, wire.HeaderActivityID, wire.HeaderRequestCharge,
		wire.HeaderSessionToken, wire.HeaderSubStatus, wire.HeaderPKRangeID, wire.HeaderGatewayVersion,
		wire.HeaderAltContentPath, wire.HeaderETag, wire.HeaderLSN, wire.HeaderItemCount,
		wire.HeaderContinuation, wire.HeaderRetryAfterMs, wire.HeaderQueryMetrics,
		wire.HeaderIndexUtilization, wire.HeaderResourceUsage, wire.HeaderResourceQuota,
		wire.HeaderOfferReplacePending, wire.HeaderMinThroughput,
	}
	for i, n := range names {
		names[i] = wire.ServiceSpelling(n)
	}
	return names
}()

// The service's spelling of the headers every response carries, assigned directly.
var (
	spActivityID     = wire.ServiceSpelling(wire.HeaderActivityID)
	spCharge         = wire.ServiceSpelling(wire.HeaderRequestCharge)
	spSession        = wire.ServiceSpelling(wire.HeaderSessionToken)
	spPKRangeID      = wire.ServiceSpelling(wire.HeaderPKRangeID)
	spAltContentPath = wire.ServiceSpelling(wire.HeaderAltContentPath)
	spGatewayVersion = wire.ServiceSpelling(wire.HeaderGatewayVersion)
	spSubStatus      = wire.ServiceSpelling(wire.HeaderSubStatus)
)

// spelling maps a header name in any case to the service's spelling.
var spelling = func() map[string]string {
	m := make(map[string]string, len(sentHeaders))
	for _, h := range sentHeaders {
		m[strings.ToLower(h)] = h
	}
	return m
}()

// spell returns the service's spelling of header name k: the table's when it lists it, else
// wire.ServiceSpelling's rule.
func spell(k string) string {
	if s, ok := spelling[strings.ToLower(k)]; ok {
		return s
	}
	return wire.ServiceSpelling(k)
}

// copyHeaders copies src into dst with every key spelled as the service spells it.
func copyHeaders(dst, src http.Header) {
	for k, v := range src {
		dst[spell(k)] = v
	}
}
