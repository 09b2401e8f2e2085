package query

import (
	"strings"
	"testing"
)

// TestGroupByEquivalentPaths: c.pk and c["pk"] are one property path, so either may be selected
// when the other is grouped (as the service accepts them); checked failing before exprKey read
// c["pk"] as c.pk.
func TestGroupByEquivalentPaths(t *testing.T) {
	docs := []Document{{Key: "1", Value: map[string]any{"pk": "a", "o": map[string]any{"k": 1.0}}},
		{Key: "2", Value: map[string]any{"pk": "a", "o": map[string]any{"k": 1.0}}}, {Key: "3", Value: map[string]any{"pk": "b"}}}
	for text, want := range map[string]string{
		`SELECT c["pk"], COUNT(1) AS n FROM c GROUP BY c.pk`: `{"pk":"a","n":2} {"pk":"b","n":1}`,
		`SELECT c.pk, COUNT(1) AS n FROM c GROUP BY c["pk"]`: `{"pk":"a","n":2} {"pk":"b","n":1}`,
		`SELECT VALUE c["o"].k FROM c GROUP BY c.o["k"]`:     `1`,
		`SELECT VALUE c.o.k FROM c GROUP BY c["o"]["k"]`:     `1`,
	} {
		q, err := Parse(text)
		if err != nil {
			t.Errorf("%s: %v", text, err)
			continue
		}
		page, err := q.Execute(docs, Options{})
		if err != nil {
			t.Errorf("%s: %v", text, err)
			continue
		}
		var got []string
		for _, r := range page.Results {
			got = append(got, string(r))
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("%s: %s, want %s", text, g, want)
		}
	}
	if _, err := Parse(`SELECT c.other FROM c GROUP BY c["pk"]`); err == nil {
		t.Error("a property outside GROUP BY accepted")
	}
}
