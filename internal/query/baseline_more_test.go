package query

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// moreBaselineCase is one case of testdata/queryplan_more_baselines.json: the .NET SDK's
// QueryPlanBaselineTests.{Like,Spatial,SystemFunctions,Bugs,Negative,RangePartitionKey}.xml
// (azure-cosmos-dotnet-v3 at 8c53d35, converted to JSON: input, the service's queryRanges or the
// message of the error it answers).
type moreBaselineCase struct {
	Name             string         `json:"name"`
	Query            string         `json:"query"`
	PartitionKeys    []string       `json:"partitionKeys"`
	PartitionKeyType string         `json:"partitionKeyType"`
	Params           map[string]any `json:"params"`
	GeospatialType   string         `json:"geospatialType"`
	Error            string         `json:"error"`
	QueryRanges      []string       `json:"queryRanges"`
}

// TestQueryPlanMoreBaselines checks partition targeting (queryRanges) and refusals of the remaining
// .NET plan baselines exactly. Range-kind partition keys (a legacy kind the service no longer
// creates; cosmostest containers are Hash or MultiHash) are skipped and counted.
func TestQueryPlanMoreBaselines(t *testing.T) {
	b, err := os.ReadFile("testdata/queryplan_more_baselines.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []moreBaselineCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	exact, refused, rangeKind := 0, 0, 0
	for _, c := range cases {
		if c.PartitionKeyType == "Range" {
			rangeKind++
			continue
		}
		got, err := planOf(baselineCase{Query: c.Query, PartitionKeys: c.PartitionKeys, PartitionKeyType: c.PartitionKeyType, Params: c.Params, GeospatialType: c.GeospatialType})
		switch {
		case c.Error != "" && err == nil:
			t.Errorf("%s: %s\nwant error %q, got a plan", c.Name, c.Query, c.Error)
		case c.Error != "":
			refused++
		case err != nil:
			t.Errorf("%s: %s\nerror %v", c.Name, c.Query, err)
		default:
			g, w := slices.Sorted(slices.Values(got.QueryRanges)), slices.Sorted(slices.Values(c.QueryRanges))
			if !slices.Equal(g, w) {
				t.Errorf("%s: %s\nranges %v, want %v", c.Name, strings.Join(strings.Fields(c.Query), " "), g, w)
				continue
			}
			exact++
		}
	}
	t.Logf("%d baselines: %d query ranges exact, %d refused as the service refuses, %d Range-kind keys skipped", len(cases), exact, refused, rangeKind)
}
