// The names the Go snippets of README.md and docs/*.md assume, declared once so that every snippet
// compiles as a reader would paste it (see internal/surface/snippets_test.go). No imports: they are
// added from the package names used. A snippet may declare any of these names itself.
package snippets

// The request context and the service's handles, set up as in "The client".
var (
	ctx       context.Context
	cfg       cosmoskit.Config
	client    *cosmoskit.Client
	container *azcosmos.ContainerClient // a plain handle, e.g. client.Container("shop", "orders")
	tp        trace.TracerProvider
	mp        metric.MeterProvider
)

// Order is the README's running example, in container "orders" partitioned by /customerId.
type Order struct {
	repository.Meta
	ID         string `json:"id"`
	CustomerID string `json:"customerId"`
	Status     string `json:"status"`
	Total      int    `json:"total"`
}

// Passage is a searchable text with its embedding (Vector search).
type Passage struct {
	ID        string    `json:"id"`
	Topic     string    `json:"topic"`
	Text      string    `json:"text"`
	Embedding []float32 `json:"embedding"`
}

// Repositories over them, and what one request of a web service has at hand.
var (
	orders   *repository.Repository[Order]
	passages *repository.Repository[Passage]
	embedder vector.Embedder

	o        Order                 // an order to write
	order    Order                 // an order read earlier
	pk, key  azcosmos.PartitionKey // an order's partition key
	id       string                // an order's id
	token    string                // a page token from the previous response
	w        http.ResponseWriter   // the response being written
	cookie   string                // a cookie of the request
	hostname string                // this instance's host name
	userID   string                // the signed-in user
	tenantID string                // the user's tenant
	now      time.Time             // the request's time
)

// Application functions the snippets call.
var (
	setCookie func(w http.ResponseWriter, value string)
	merge     func(ctx context.Context, c conflicts.Conflict) error
	readShard func(ctx context.Context, pk partitionkey.Key) ([]Order, error)
	readOrder func(ctx context.Context) error
)
