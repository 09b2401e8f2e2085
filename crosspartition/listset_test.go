package crosspartition

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestMakeListAndMakeSetAcrossPartitions: the engine advertises ListAndSetAggregate, so the
// gateway plans MAKELIST/MAKESET queries instead of refusing them, and the merge gives the same
// multiset (MAKELIST) and set (MAKESET) on 1, 4 and 8 physical partitions.
func TestMakeListAndMakeSetAcrossPartitions(t *testing.T) {
	all := docs(60)
	var wantList []float64
	for _, d := range all {
		wantList = append(wantList, float64(d["n"].(int)))
	}
	slices.Sort(wantList)
	wantSet := slices.Compact(slices.Clone(wantList))
	for _, n := range []int{1, 4, 8} {
		_, c := newContainer(t, n, nil)
		put(t, c, all...)
		x := mustNew(t, c)
		for _, tc := range []struct {
			query string
			want  []float64
			field string
		}{
			{"SELECT VALUE MAKELIST(c.n) FROM c", wantList, ""},
			{"SELECT VALUE MAKESET(c.n) FROM c", wantSet, ""},
			{"SELECT MAKELIST(c.n) AS l FROM c", wantList, "l"},
			{"SELECT MAKESET(c.n) AS s, COUNT(1) AS k FROM c", wantSet, "s"},
		} {
			rows, err := readAll(t, x, tc.query, nil, 5, nil)
			if err != nil {
				t.Fatalf("%d partitions, %s: %v", n, tc.query, err)
			}
			if len(rows) != 1 {
				t.Fatalf("%d partitions, %s: %d rows", n, tc.query, len(rows))
			}
			raw := rows[0]
			if tc.field != "" {
				var m map[string]json.RawMessage
				_ = json.Unmarshal(raw, &m)
				raw = m[tc.field]
			}
			var got []float64
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatalf("%s: %s", tc.query, rows[0])
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("%d partitions, %s: %v, want %v", n, tc.query, got, tc.want)
			}
		}
		// GROUP BY with MAKESET: one row per group, each the group's distinct values.
		rows, err := readOnePager(t, x, "SELECT c.s, MAKESET(c.pk) AS pks FROM c GROUP BY c.s", nil, 2, nil)
		if err != nil || len(rows) != 5 {
			t.Fatalf("%d partitions, GROUP BY MAKESET: %d rows, %v", n, len(rows), err)
		}
		for _, r := range rows {
			var g struct {
				S   string
				Pks []string
			}
			_ = json.Unmarshal(r, &g)
			var want []string
			for _, d := range all {
				if d["s"] == g.S {
					want = append(want, d["pk"].(string))
				}
			}
			want = slices.Compact(slices.Sorted(slices.Values(want)))
			if got := slices.Sorted(slices.Values(g.Pks)); !slices.Equal(got, want) {
				t.Errorf("%d partitions, group %s: pks %v, want %v", n, g.S, got, want)
			}
		}
	}
}

// TestOffsetBeyondInt32: the service rewrites OFFSET 2147483647 LIMIT 10 for the partitions as
// OFFSET 0 LIMIT 2147483657 (a limit above 2^31-1), which the partitions must accept.
func TestOffsetBeyondInt32(t *testing.T) {
	_, c := newContainer(t, 4, nil)
	put(t, c, docs(20)...)
	x := mustNew(t, c)
	for _, q := range []string{"SELECT c.id FROM c OFFSET 2147483647 LIMIT 10", "SELECT c.id FROM c ORDER BY c.n OFFSET 2147483647 LIMIT 10"} {
		rows, err := readAll(t, x, q, nil, 5, nil)
		if err != nil || len(rows) != 0 {
			t.Errorf("%s: %d rows, %v", q, len(rows), err)
		}
	}
	rows, err := readAll(t, x, "SELECT c.id FROM c OFFSET 0 LIMIT 2147483657", nil, 5, nil)
	if err != nil || len(rows) != 20 {
		t.Errorf("OFFSET 0 LIMIT 2147483657: %d rows, %v", len(rows), err)
	}
}
