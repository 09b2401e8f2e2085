package diagnostics

import (
	"context"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// IndexAdvice is one index in an [Explanation]: a single-path index ("/status/?") or a composite
// one ("/status ASC", "/_ts DESC"), with the service's impact score ("High", "Low") for a
// potential one.
type IndexAdvice struct {
	Paths     []string
	Composite bool
	Impact    string
}

// Explanation is what Explain learnt from the first page of a query.
type Explanation struct {
	// Retrieved and Returned are the documents the page loaded and returned (-1 if the service
	// did not say); Scan reports whether that is a scan under the ScanOptions given.
	Retrieved, Returned int64
	Scan                bool
	// RequestCharge is the page's charge.
	RequestCharge float64
	// IndexHitRatio is the query metrics' indexUtilizationRatio (-1 if absent).
	IndexHitRatio float64
	// Utilized lists the indexes the query used; Potential those that would serve it better.
	Utilized, Potential []IndexAdvice
}

// Explain runs the first page of query with index metrics and reports the documents it retrieved
// and returned and the indexes it used or lacked. The metrics are requested with
// x-ms-cosmos-populateindexmetrics (azcosmos.QueryOptions.PopulateIndexMetrics; the service
// advises to ask for them only while tuning, as they cost extra work). pk scopes the query as in NewQueryItemsPager (an empty partition key
// for a cross-partition query); opts may be nil. The query's parameter values are sent, never
// reported.
//
// Errors: a *cosmoserr.ValidationError for an empty query; otherwise the query's failure as a
// *cosmoserr.Error.
func Explain(ctx context.Context, c *azcosmos.ContainerClient, query string, pk azcosmos.PartitionKey, opts *azcosmos.QueryOptions, scan ScanOptions) (Explanation, error) {
	if c == nil {
		return Explanation{}, &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "container", Reason: "is nil"}
	}
	if query == "" {
		return Explanation{}, &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "query", Reason: "is empty"}
	}
	o := azcosmos.QueryOptions{}
	if opts != nil {
		o = *opts
	}
	o.PopulateIndexMetrics = true
	pager := c.NewQueryItemsPager(query, pk, &o)
	page, err := pager.NextPage(ctx)
	if err != nil {
		return Explanation{}, cosmoserr.FromError(cosmoserr.OpQueryItems, err)
	}
	x := Explanation{Retrieved: -1, Returned: -1, IndexHitRatio: -1, RequestCharge: float64(page.RequestCharge)}
	if page.QueryMetrics != nil {
		if qm, ok := wire.ParseQueryMetrics(*page.QueryMetrics); ok {
			x.Retrieved, x.Returned, x.IndexHitRatio = qm.RetrievedDocumentCount, qm.OutputDocumentCount, qm.IndexHitRatio
			x.Scan = scan.isScan(max(qm.RetrievedDocumentCount, 0), max(qm.OutputDocumentCount, 0))
		}
	}
	if page.IndexMetrics != nil && *page.IndexMetrics != "" {
		u, err := wire.ParseIndexUtilization(*page.IndexMetrics)
		if err != nil {
			return x, fmt.Errorf("diagnostics: explain: index metrics unreadable: %w", err)
		}
		single := func(in []wire.SingleIndexUtilization) (out []IndexAdvice) {
			for _, s := range in {
				out = append(out, IndexAdvice{Paths: []string{s.IndexSpec}, Impact: s.IndexImpactScore})
			}
			return out
		}
		composite := func(in []wire.CompositeIndexUtilization) (out []IndexAdvice) {
			for _, s := range in {
				out = append(out, IndexAdvice{Paths: append([]string(nil), s.IndexSpecs...), Composite: true, Impact: s.IndexImpactScore})
			}
			return out
		}
		x.Utilized = append(single(u.UtilizedSingleIndexes), composite(u.UtilizedCompositeIndexes)...)
		x.Potential = append(single(u.PotentialSingleIndexes), composite(u.PotentialCompositeIndexes)...)
	}
	return x, nil
}
