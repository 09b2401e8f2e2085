package cosmostest

import (
	"encoding/json"
	"time"
)

// queryEngine is the seam for the SQL engine. minimalEngine (query_minimal.go) serves exactly the
// queries the SDK itself sends; internal/query replaces it through an adapter that implements
// this interface with query.Parse / (*Query).Info / PartitionKeyFilter / Execute and query.Match,
// so no handler changes when the engine lands. The types below mirror internal/query's
// (CONTRACTS.md) field for field.
type queryEngine interface {
	// parse parses a query; errors are *statusError (400) with the service's message.
	parse(text string) (parsedQuery, error)
	// match evaluates a patch condition ("from c where c.n = 5") against one document.
	match(condition string, doc map[string]any) (bool, error)
}

type parsedQuery interface {
	info() queryInfo
	partitionKeyFilter(paths []string, params map[string]any) (values []any, ok bool)
	execute(docs []queryDoc, opts queryOptions) (*queryPage, error)
}

// queryInfo mirrors query.Info.
type queryInfo struct {
	HasOrderBy, HasTop, HasOffsetLimit, HasDistinct, HasGroupBy, HasAggregates bool
	Plan                                                                       json.RawMessage
}

// needsGatewayPlan reports whether a cross-partition run of the query must be refused with
// 400/1004 (rest_protocol §6).
func (i queryInfo) needsGatewayPlan() bool {
	return i.HasOrderBy || i.HasTop || i.HasOffsetLimit || i.HasDistinct || i.HasGroupBy || i.HasAggregates
}

// queryDoc mirrors query.Document: Key is unique and stable, docs are passed sorted by Key.
type queryDoc struct {
	Key   string
	Value map[string]any
}

// queryOptions mirrors query.Options (without the vector defaults until the engine lands).
type queryOptions struct {
	Params       map[string]any
	MaxItemCount int
	MaxBytes     int
	Continuation string
	Now          time.Time
}

// queryPage mirrors query.Page.
type queryPage struct {
	Results      []json.RawMessage
	Continuation string
	Scanned      int
}

// engine is the query engine in use.
var engine queryEngine = minimalEngine{}
