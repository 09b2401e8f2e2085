package cosmostest

import (
	"encoding/base64"
	"strings"
)

// Index advice (x-ms-cosmos-index-utilization, asked for with x-ms-cosmos-populateindexmetrics):
// the single-path indexes a query's top-level WHERE comparisons could use. A compared path the
// container's indexing policy indexes is reported as utilized, one it excludes (or every path,
// with indexing mode none) as potential. A path filtered by ST_WITHIN, ST_INTERSECTS or a
// comparison of ST_DISTANCE is reported as utilized when one of the policy's spatialIndexes
// covers it (whatever its types: the query does not say which geometry types the documents hold
// there), else as potential. Both are reported as "/path/?" (unsure: the service's IndexSpec for
// a spatial index is not documented, nor recorded). Composite index advice is not computed.

func (s *sqlQuery) filterPaths() []string { return s.q.FilterPaths() }

func (s *sqlQuery) spatialFilterPaths() []string { return s.q.SpatialFilterPaths() }

type singleIndexAdvice struct {
	FilterExpression string
	IndexSpec        string
	FilterPreciseSet bool
	IndexPreciseSet  bool
	IndexImpactScore string
}

// indexUtilization returns the header value for query q on container c.
func indexUtilization(c *container, q parsedQuery) string {
	utilized, potential := []singleIndexAdvice{}, []singleIndexAdvice{}
	ip, _ := c.props["indexingPolicy"].(map[string]any)
	advise := func(paths []string, indexed func(ip map[string]any, path string) bool) {
		for _, p := range paths {
			a := singleIndexAdvice{IndexSpec: p + "/?", FilterPreciseSet: true, IndexPreciseSet: true, IndexImpactScore: "High"}
			if indexed(ip, p) {
				utilized = append(utilized, a)
			} else {
				potential = append(potential, a)
			}
		}
	}
	if fq, ok := q.(interface{ filterPaths() []string }); ok {
		advise(fq.filterPaths(), indexed)
	}
	if fq, ok := q.(interface{ spatialFilterPaths() []string }); ok {
		advise(fq.spatialFilterPaths(), spatiallyIndexed)
	}
	body := mustJSON(map[string]any{"UtilizedSingleIndexes": utilized, "PotentialSingleIndexes": potential,
		"UtilizedCompositeIndexes": []any{}, "PotentialCompositeIndexes": []any{}})
	return base64.StdEncoding.EncodeToString(body)
}

// indexed reports whether the indexing policy ip (nil: the default, everything) has a range index
// on path: the longest included or excluded pattern that matches decides, excluded on a tie.
func indexed(ip map[string]any, path string) bool {
	if ip == nil {
		return true
	}
	if mode, _ := ip["indexingMode"].(string); strings.EqualFold(mode, "none") {
		return false
	}
	best, inc := -1, false
	for _, list := range []struct {
		key      string
		included bool
	}{{"includedPaths", true}, {"excludedPaths", false}} {
		all, _ := ip[list.key].([]any)
		for _, x := range all {
			m, _ := x.(map[string]any)
			pat, _ := m["path"].(string)
			if n := patternMatch(policyPath(strings.TrimSuffix(strings.TrimSuffix(pat, "/?"), "/*")), pat, path); n > best || (n == best && n >= 0 && !list.included) {
				best, inc = n, list.included
			}
		}
	}
	if best < 0 {
		all, _ := ip["includedPaths"].([]any)
		return len(all) == 0 // no included paths listed: the service's default is /*
	}
	return inc
}

// spatiallyIndexed reports whether one of the indexing policy's spatialIndexes ("/location/?",
// "/location/*", "/*") covers path, with indexing not switched off.
func spatiallyIndexed(ip map[string]any, path string) bool {
	if mode, _ := ip["indexingMode"].(string); strings.EqualFold(mode, "none") {
		return false
	}
	all, _ := ip["spatialIndexes"].([]any)
	for _, x := range all {
		m, _ := x.(map[string]any)
		pat, _ := m["path"].(string)
		if patternMatch(policyPath(strings.TrimSuffix(strings.TrimSuffix(pat, "/?"), "/*")), pat, path) >= 0 {
			return true
		}
	}
	return false
}

// patternMatch returns the length of the pattern's path part when pat ("/a/?", "/a/*", "/*") covers
// path ("/a"), else -1.
func patternMatch(base, pat, path string) int {
	switch {
	case pat == "/*":
		return 0
	case strings.HasSuffix(pat, "/?"):
		if base == path {
			return len(base)
		}
	case strings.HasSuffix(pat, "/*"):
		if path == base || strings.HasPrefix(path, base+"/") {
			return len(base)
		}
	}
	return -1
}
