package wire

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
)

// Query metrics request headers (the response headers, HeaderQueryMetrics and
// HeaderIndexUtilization, are in headers.go). azcosmos sends HeaderPopulateQueryMetrics "true" on every query, so every
// query page carries HeaderQueryMetrics at no extra charge; HeaderPopulateIndexMetrics "true"
// (QueryOptions.PopulateIndexMetrics) asks for HeaderIndexUtilization as well.
const (
	HeaderPopulateQueryMetrics = "X-Ms-Documentdb-Populatequerymetrics"
	HeaderPopulateIndexMetrics = "X-Ms-Cosmos-Populateindexmetrics"
)

// QueryMetrics is the content of HeaderQueryMetrics: "name=value" pairs separated by ";"
// (retrievedDocumentCount=1000;outputDocumentCount=10;...). Missing counts are -1.
type QueryMetrics struct {
	RetrievedDocumentCount int64
	RetrievedDocumentSize  int64
	OutputDocumentCount    int64
	OutputDocumentSize     int64
	IndexHitRatio          float64 // indexUtilizationRatio, -1 if absent
	TotalExecutionTimeMs   float64 // totalExecutionTimeInMs, -1 if absent
}

// ParseQueryMetrics parses a HeaderQueryMetrics value. It reports false when the value has neither
// retrievedDocumentCount nor outputDocumentCount. Unknown names and malformed pairs are skipped.
func ParseQueryMetrics(s string) (QueryMetrics, bool) {
	m := QueryMetrics{RetrievedDocumentCount: -1, RetrievedDocumentSize: -1, OutputDocumentCount: -1, OutputDocumentSize: -1, IndexHitRatio: -1, TotalExecutionTimeMs: -1}
	for s != "" {
		var pair string
		pair, s, _ = strings.Cut(s, ";")
		name, value, ok := strings.Cut(pair, "=")
		if !ok {
			continue
		}
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		switch name {
		case "retrievedDocumentCount":
			m.RetrievedDocumentCount = count(value)
		case "retrievedDocumentSize":
			m.RetrievedDocumentSize = count(value)
		case "outputDocumentCount":
			m.OutputDocumentCount = count(value)
		case "outputDocumentSize":
			m.OutputDocumentSize = count(value)
		case "indexUtilizationRatio":
			m.IndexHitRatio = ratio(value)
		case "totalExecutionTimeInMs":
			m.TotalExecutionTimeMs = ratio(value)
		}
	}
	return m, m.RetrievedDocumentCount >= 0 || m.OutputDocumentCount >= 0
}

func count(v string) int64 {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

func ratio(v string) float64 {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || f != f {
		return -1
	}
	return f
}

// IndexUtilization is the decoded HeaderIndexUtilization: base64 of a JSON object listing the
// single and composite indexes the query used and those that would serve it better.
type IndexUtilization struct {
	UtilizedSingleIndexes     []SingleIndexUtilization
	PotentialSingleIndexes    []SingleIndexUtilization
	UtilizedCompositeIndexes  []CompositeIndexUtilization
	PotentialCompositeIndexes []CompositeIndexUtilization
}

// SingleIndexUtilization is one single-path index entry ("IndexSpec": "/name/?").
type SingleIndexUtilization struct {
	FilterExpression string
	IndexSpec        string
	FilterPreciseSet bool
	IndexPreciseSet  bool
	IndexImpactScore string
}

// CompositeIndexUtilization is one composite index entry ("IndexSpecs": ["/name ASC", "/age DESC"]).
type CompositeIndexUtilization struct {
	IndexSpecs       []string
	IndexPreciseSet  bool
	IndexImpactScore string
}

// ParseIndexUtilization decodes a HeaderIndexUtilization value (base64 JSON; a plain JSON object
// is accepted too).
func ParseIndexUtilization(s string) (IndexUtilization, error) {
	var u IndexUtilization
	s = strings.TrimSpace(s)
	b := []byte(s)
	if !strings.HasPrefix(s, "{") {
		var err error
		if b, err = base64.StdEncoding.DecodeString(s); err != nil {
			return u, err
		}
	}
	err := json.Unmarshal(b, &u)
	return u, err
}
