package changefeed

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// compositeToken is the JSON shape of the continuation azcosmos v1.5.0 ReadChangeFeed takes and
// returns (ChangeFeedOptions.Continuation, ChangeFeedResponse.ContinuationToken): a queue of EPK
// ranges, each with the etag of the last change read from it. After a split the SDK replaces a
// range by its children, each inheriting the parent's etag. A lease keeps one range and its etag
// (as .NET and Java leases do) and builds the token for each read; a token that comes back with
// several ranges means the lease's range was split.
type compositeToken struct {
	Version      int          `json:"version,omitempty"`
	ResourceID   string       `json:"resourceId"`
	Continuation []tokenRange `json:"continuation"`
}

type tokenRange struct {
	MinInclusive      string       `json:"minInclusive"`
	MaxExclusive      string       `json:"maxExclusive"`
	ContinuationToken *azcore.ETag `json:"continuationToken,omitempty"`
}

// startNow is the If-None-Match value asking for changes after the current one.
const startNow = "*"

// buildToken returns the continuation for reading r from etag ("" for the start, startNow for now).
func buildToken(r azcosmos.FeedRange, etag string) string {
	tr := tokenRange{MinInclusive: r.MinInclusive, MaxExclusive: r.MaxExclusive}
	if etag != "" {
		e := azcore.ETag(etag)
		tr.ContinuationToken = &e
	}
	b, _ := json.Marshal(compositeToken{Version: 1, Continuation: []tokenRange{tr}}) // cannot fail
	return string(b)
}

// errBadToken is returned for a continuation azcosmos returned that this package cannot read.
var errBadToken = errors.New("changefeed: unreadable change feed continuation")

// parseToken reads the ranges and etags of a continuation ReadChangeFeed returned.
func parseToken(s string) ([]tokenRange, error) {
	var t compositeToken
	if err := json.Unmarshal([]byte(s), &t); err != nil || len(t.Continuation) == 0 {
		return nil, errBadToken
	}
	for _, r := range t.Continuation {
		if r.MaxExclusive == "" && r.MinInclusive != "" {
			return nil, errBadToken
		}
	}
	return t.Continuation, nil
}

func (r tokenRange) etag() string {
	if r.ContinuationToken == nil {
		return ""
	}
	return string(*r.ContinuationToken)
}

func (r tokenRange) feedRange() azcosmos.FeedRange {
	return azcosmos.FeedRange{MinInclusive: r.MinInclusive, MaxExclusive: r.MaxExclusive}
}

// sessionLSN reads the partition's current LSN from a change feed response: the global LSN of its
// session token ("<range>:<version>#<globalLSN>[#<region>=<lsn>...]", or the older
// "<range>:<lsn>"), else the "lsn" header. ok is false when neither is readable.
func sessionLSN(h http.Header) (int64, bool) {
	if st := h.Get(wire.HeaderSessionToken); st != "" {
		if i := strings.LastIndexByte(st, ','); i >= 0 { // several ranges: the last one answered
			st = st[i+1:]
		}
		if i := strings.IndexByte(st, ':'); i >= 0 {
			st = st[i+1:]
		}
		parts := strings.Split(st, "#")
		v := parts[0]
		if len(parts) > 1 {
			v = parts[1]
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			return n, true
		}
	}
	if n, err := strconv.ParseInt(h.Get(wire.HeaderLSN), 10, 64); err == nil && n >= 0 {
		return n, true
	}
	return 0, false
}

// itemLSN reads the _lsn of a change (0 when absent).
func itemLSN(doc []byte) int64 {
	var v struct {
		LSN int64 `json:"_lsn"`
	}
	if json.Unmarshal(doc, &v) != nil {
		return 0
	}
	return v.LSN
}
