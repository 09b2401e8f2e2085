package query

import (
	"strings"
	"testing"
)

// TestUnsupportedNamesCosmostest: what cosmostest does not implement of the query language is
// refused with an error naming cosmostest and the feature.
func TestUnsupportedNamesCosmostest(t *testing.T) {
	for q, feature := range map[string]string{
		"SELECT DOCUMENTID(c) FROM c":    "DOCUMENTID",
		"SELECT udf.tax(c.price) FROM c": "user-defined functions",
	} {
		_, err := Parse(q)
		if err == nil || !strings.Contains(err.Error(), "cosmostest does not support") || !strings.Contains(err.Error(), feature) {
			t.Errorf("%s: %v, want an error naming cosmostest and %s", q, err, feature)
		}
	}
}
