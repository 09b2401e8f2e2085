package cosmostest

import (
	"net/http"
	"strings"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// sentHeaders is every header cosmostest sends, spelled as the service sends it (internal/wire's
// constants, the one home of header names): x-ms-* and etag and lsn in lower case, the standard
// HTTP headers in their usual case. Responses are written with these keys assigned into the
// header map (http.Header.Set would canonicalise them to "X-Ms-Continuation", "Etag"), so a client
// that copies response headers into a plain map and looks them up by the service's spelling finds
// them. TestHeaderSpelling checks every response of every operation against this table.
var sentHeaders = []string{
	wire.HeaderContentType,
	"Content-Length",
	wire.HeaderActivityID,
	wire.HeaderRequestCharge,
	wire.HeaderSessionToken,
	wire.HeaderSubStatus,
	wire.HeaderPKRangeID,
	wire.HeaderGatewayVersion,
	wire.HeaderAltContentPath,
	wire.HeaderETag,
	wire.HeaderLSN,
	wire.HeaderItemCount,
	wire.HeaderContinuation,
	wire.HeaderRetryAfterMs,
	wire.HeaderQueryMetrics,
	wire.HeaderIndexUtilization,
	wire.HeaderResourceUsage,
	wire.HeaderResourceQuota,
	wire.HeaderOfferReplacePending,
	wire.HeaderMinThroughput,
}

// spelling maps a header name in any case to the service's spelling.
var spelling = func() map[string]string {
	m := make(map[string]string, len(sentHeaders))
	for _, h := range sentHeaders {
		m[strings.ToLower(h)] = h
	}
	return m
}()

// spell returns the service's spelling of header name k: the table's when it lists it, else
// lower case (the service's x-ms-* headers are all lower case).
func spell(k string) string {
	if s, ok := spelling[strings.ToLower(k)]; ok {
		return s
	}
	return strings.ToLower(k)
}

// copyHeaders copies src into dst with every key spelled as the service spells it.
func copyHeaders(dst, src http.Header) {
	for k, v := range src {
		dst[spell(k)] = v
	}
}
