package bulk

import (
	"fmt"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Options configure an Executor. The zero value of each field is its documented default;
// Executor.Options returns the options in effect.
type Options struct {
	// MaxOperationsPerRequest is the most operations packed into one request, 1 to 100 (a paced
	// partition's requests carry fewer when that many would cost over 5% of a second at its
	// rate). Default: 100, the service's limit.
	MaxOperationsPerRequest int
	// MaxRequestBytes is the most operation JSON packed into one request (an operation larger
	// than this travels alone), 1 KB to 2 MB. Default: 220,201 bytes, what the Java and .NET
	// bulk executors pack.
	MaxRequestBytes int
	// MaxConcurrencyPerRange is the most requests in flight to one physical partition; the
	// adaptive window starts at 1 and grows to it while no request is throttled, and halves on a
	// throttle. Default: 8.
	MaxConcurrencyPerRange int
	// MaxAttempts is how many times one operation is sent before its last throttle (429), split
	// (410) or transient failure becomes its result. Default: 30.
	MaxAttempts int
	// MaxPending is the most operations read from the input and not yet reported; reading pauses
	// above it, so a job over millions of operations holds at most this many. Default: 10,000.
	MaxPending int
	// Linger is how long a partly filled request waits for more operations of its range while the
	// input is still flowing. Default: 5 ms.
	Linger time.Duration
	// ContentResponseOnWrite asks for the document in the results of writes (Result.Body).
	// Default: false (Prefer: return=minimal; reads always return the document).
	ContentResponseOnWrite bool
	// Total is the number of operations the input will yield, when known, for Progress.ETA.
	// Default: 0, unknown.
	Total int64
	// OnProgress, when set, is called with the job's progress every ProgressInterval and once when
	// the job ends, from one goroutine at a time. Default: nil.
	OnProgress func(Progress)
	// ProgressInterval is the period of OnProgress and of the RU/s and 429 rate it reports.
	// Default: 1 s.
	ProgressInterval time.Duration
	// MeterProvider receives the metrics cosmoskit.bulk.operations (by outcome) and
	// cosmoskit.bulk.request_charge. Default: nil, the global OpenTelemetry meter provider.
	MeterProvider metric.MeterProvider
}

const (
	defaultMaxConcurrency = 8
	defaultMaxAttempts    = 30
	defaultMaxPending     = 10000
	defaultLinger         = 5 * time.Millisecond
	defaultProgress       = time.Second
	minRequestBytes       = 1 << 10
)

func bad(field, format string, args ...any) error {
	return &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "Options." + field, Reason: fmt.Sprintf(format, args...)}
}

// withDefaults checks o and fills in the defaults.
func (o Options) withDefaults() (Options, error) {
	switch {
	case o.MaxOperationsPerRequest < 0 || o.MaxOperationsPerRequest > wire.MaxBatchOperations:
		return o, bad("MaxOperationsPerRequest", "is %d; use 1 to %d, or 0 for %d", o.MaxOperationsPerRequest, wire.MaxBatchOperations, wire.MaxBatchOperations)
	case o.MaxRequestBytes != 0 && (o.MaxRequestBytes < minRequestBytes || o.MaxRequestBytes > wire.MaxRequestBodyBytes):
		return o, bad("MaxRequestBytes", "is %d; use %d to %d, or 0 for %d", o.MaxRequestBytes, minRequestBytes, wire.MaxRequestBodyBytes, wire.BulkTargetBodyBytes)
	case o.MaxConcurrencyPerRange < 0:
		return o, bad("MaxConcurrencyPerRange", "is negative")
	case o.MaxAttempts < 0:
		return o, bad("MaxAttempts", "is negative")
	case o.MaxPending < 0:
		return o, bad("MaxPending", "is negative")
	case o.Linger < 0:
		return o, bad("Linger", "is negative")
	case o.Total < 0:
		return o, bad("Total", "is negative")
	case o.ProgressInterval < 0:
		return o, bad("ProgressInterval", "is negative")
	}
	if o.MaxOperationsPerRequest == 0 {
		o.MaxOperationsPerRequest = wire.MaxBatchOperations
	}
	if o.MaxRequestBytes == 0 {
		o.MaxRequestBytes = wire.BulkTargetBodyBytes
	}
	if o.MaxConcurrencyPerRange == 0 {
		o.MaxConcurrencyPerRange = defaultMaxConcurrency
	}
	if o.MaxAttempts == 0 {
		o.MaxAttempts = defaultMaxAttempts
	}
	if o.MaxPending == 0 {
		o.MaxPending = defaultMaxPending
	}
	if o.Linger == 0 {
		o.Linger = defaultLinger
	}
	if o.ProgressInterval == 0 {
		o.ProgressInterval = defaultProgress
	}
	return o, nil
}
