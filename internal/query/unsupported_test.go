package query

import (
	"strings"
	"testing"
)

// TestUnsupportedNamesCosmostest: what cosmostest does not implement of the query language is
// refused with an error naming cosmostest and the feature.
func TestUnsupportedNamesCosmostest(t *testing.T) {
	for q, feature := range map[string]string{
		"SELECT udf.x FROM c": "user-defined functions",
	} {
		_, err := Parse(q)
		if err == nil || !strings.Contains(err.Error(), "cosmostest does not support") || !strings.Contains(err.Error(), feature) {
			t.Errorf("%s: %v, want an error naming cosmostest and %s", q, err, feature)
		}
	}
	// A user-defined function call parses and plans (the gateway plans it without knowing the
	// function), and is refused when the query runs, whether or not the call is reached.
	for _, q := range []string{"SELECT udf.tax(c.price) FROM c", "SELECT * FROM c WHERE false AND udf.f()",
		"SELECT VALUE COUNT(1) FROM c WHERE UDF.isOk(c, [1, 2], udf.g(c.x))"} {
		parsed, err := Parse(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if _, err := parsed.Plan(PlanOptions{}); err != nil {
			t.Errorf("%s: plan: %v", q, err)
		}
		_, err = parsed.Execute([]Document{{Key: "1", Value: map[string]any{"id": "1"}}}, Options{})
		if err == nil || !strings.Contains(err.Error(), "cosmostest does not support user-defined functions") {
			t.Errorf("%s: %v, want the refusal of user-defined functions", q, err)
		}
	}
	if _, err := Match("FROM c WHERE udf.f(c)", map[string]any{}); err == nil {
		t.Error("Match with a udf call: no error")
	}
}

// TestDocumentID runs the reference's DOCUMENTID examples on a document with the page's _rid.
func TestDocumentID(t *testing.T) {
	doc := map[string]any{"id": "5741047452", "name": "Joltage Kid's Vest", "_rid": "36ZyAPW+uN8NAAAAAAAAAA=="}
	for q, want := range map[string]string{
		"SELECT p.id, p._rid, DOCUMENTID(p) AS documentId FROM product p":                                          `{"id":"5741047452","_rid":"36ZyAPW+uN8NAAAAAAAAAA==","documentId":13}`,
		"SELECT p.id, DOCUMENTID(p) AS documentId FROM product p WHERE DOCUMENTID(p) >= 5 AND DOCUMENTID(p) <= 15": `{"id":"5741047452","documentId":13}`,
		"SELECT VALUE [DOCUMENTID({}), DOCUMENTID({_rid: 'x'}), DOCUMENTID(1)]":                                    `[]`,
	} {
		parsed, err := Parse(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		page, err := parsed.Execute([]Document{{Key: "1", Value: doc}}, Options{})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if len(page.Results) != 1 || string(page.Results[0]) != want {
			t.Errorf("%s: %s, want %s", q, page.Results, want)
		}
	}
}
