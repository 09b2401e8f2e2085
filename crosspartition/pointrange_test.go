package crosspartition

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/internal/epk"
)

// servicePlans answers query plan requests with the plan set for the query text (the service's own
// plan, from the .NET SDK's baselines), so that the engine is tested against what the real gateway
// answers rather than against cosmostest's plans. Other requests pass through.
type servicePlans struct {
	mu    sync.Mutex
	plans map[string]string // query text -> plan JSON
	asked int
	next  policy.Transporter
}

func (p *servicePlans) Do(req *http.Request) (*http.Response, error) {
	if req.Header.Get(hdrIsQueryPlan) != "True" || req.Body == nil {
		return p.next.Do(req)
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	var q struct {
		Query string `json:"query"`
	}
	_ = json.Unmarshal(body, &q)
	p.mu.Lock()
	plan, ok := p.plans[q.Query]
	if ok {
		p.asked++
	}
	p.mu.Unlock()
	if !ok {
		return p.next.Do(req)
	}
	return &http.Response{
		StatusCode: http.StatusOK, Request: req, Body: io.NopCloser(strings.NewReader(plan)),
		Header: http.Header{"Content-Type": {"application/json"}},
	}, nil
}

// newContainerWithPlans is newContainer whose client's plan requests servicePlans answers.
func newContainerWithPlans(t *testing.T, n int, plans *servicePlans) *azcosmos.ContainerClient {
	t.Helper()
	s := cosmostest.NewServer(t, cosmostest.WithPartitionCount(n))
	cred, err := azcosmos.NewKeyCredential(s.Key())
	if err != nil {
		t.Fatal(err)
	}
	co := s.ClientOptions()
	plans.next = co.Transport
	co.Transport = plans
	client, err := azcosmos.NewClientWithKey(s.Endpoint(), cred, co)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		var re *azcore.ResponseError
		if !errors.As(err, &re) || re.StatusCode != http.StatusConflict {
			t.Fatal(err)
		}
	}
	db, _ := client.NewDatabase("db")
	props := azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2}}
	if _, err := db.CreateContainer(ctx, props, nil); err != nil {
		t.Fatal(err)
	}
	c, _ := db.NewContainer("c")
	return c
}

// emptyQueryInfo is the service's queryInfo of a query with nothing to merge (Basic/Projection
// Only in the .NET SDK's QueryPlanBaselineTests).
const emptyQueryInfo = `{"distinctType":"None","top":null,"offset":null,"limit":null,"orderBy":[],"orderByExpressions":[],"groupByExpressions":[],"groupByAliases":[],"aggregates":[],"groupByAliasToAggregateType":{},"rewrittenQuery":"","hasSelectValue":false,"dCountInfo":null,"hasNonStreamingOrderBy":false}`

// pointPlan is the service's plan of such a query that reads no document: the EPK point ["",""].
const pointPlan = `{"partitionedQueryExecutionInfoVersion":2,"queryInfo":` + emptyQueryInfo + `,"queryRanges":[{"min":"","max":"","isMinInclusive":true,"isMaxInclusive":true}]}`

// TestQueriesThatReadNothingGoToOneRange: SELECT 5, WHERE false and contradictory keys have the
// point range ["",""] in the service's plan (and cosmostest's): one request, to the first range,
// so one row for SELECT 5 whatever the number of physical partitions. IN over arrays has the
// undefined key's point: one request too.
func TestQueriesThatReadNothingGoToOneRange(t *testing.T) {
	cases := []struct {
		query string
		want  []string
	}{
		{"SELECT 5", []string{`{"$1":5}`}},
		{"SELECT VALUE 5", []string{`5`}},
		{"SELECT * FROM c WHERE false", nil},
		{"SELECT VALUE c.n FROM c WHERE c.pk = 'p1' AND c.pk = 'p2'", nil},
		// The undefined key's point (the service's plan of IN over arrays: [[{}],[{}]]).
		{"SELECT VALUE c.n FROM c WHERE c.pk IN ([], [1])", nil},
	}
	for _, n := range []int{1, 4, 8} {
		for _, fed := range []bool{false, true} {
			plans := &servicePlans{plans: map[string]string{}}
			if fed {
				for _, c := range cases {
					plans.plans[c.query] = pointPlan
				}
				undef := epk.Hash([]any{epk.Undefined}, "Hash", 2)
				plans.plans[cases[4].query] = strings.Replace(pointPlan, `"min":"","max":""`, `"min":"`+undef+`","max":"`+undef+`"`, 1)
			}
			c := newContainerWithPlans(t, n, plans)
			put(t, c, docs(40)...)
			x := mustNew(t, c)
			for _, tc := range cases {
				rows, ranges := contacted(t, x, tc.query, nil)
				var got []string
				for _, r := range rows {
					got = append(got, string(r))
				}
				if !slices.Equal(got, tc.want) || len(ranges) != 1 {
					t.Errorf("%d partitions, service's plan %v, %s: rows %v from ranges %v, want %v from one range", n, fed, tc.query, got, ranges, tc.want)
				}
			}
			if fed && plans.asked != len(cases) {
				t.Errorf("the service's plan was asked %d times, want %d", plans.asked, len(cases))
			}
		}
	}
}
