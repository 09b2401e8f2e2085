package capacity

import (
	"context"
	"fmt"
	"math"

	"github.com/cosmoskit/cosmoskit-go/diagnostics"
)

// DefaultRuns is MeasureOptions.Runs when unset.
const DefaultRuns = 10

// MeasureOptions configures [Measure]. The zero value is the default.
type MeasureOptions struct {
	// Runs is how many times the operation runs. Default (0): DefaultRuns.
	Runs int
	// Warmup is how many runs come first and are not counted (the SDK's first call reads the
	// account, container and partition key ranges; those reads are on contexts of its own and
	// not charged anyway, but a warm-up also primes caches of the caller's own). Default: 0.
	Warmup int
}

// Options returns o with the defaults written out.
func (o MeasureOptions) Options() MeasureOptions {
	if o.Runs == 0 {
		o.Runs = DefaultRuns
	}
	return o
}

// Measurement is the RU one pattern's operation costs, measured.
type Measurement struct {
	// Pattern is the pattern's name.
	Pattern string
	// Runs is the number of counted runs; Requests the Cosmos DB requests they made (a query of
	// several pages is several requests).
	Runs, Requests int
	// MeanRU, MinRU and MaxRU are the request charge per run.
	MeanRU, MinRU, MaxRU float64
	// Throttles is the number of attempts answered 429 during the runs (their RU is included).
	Throttles int
}

// Measure runs op Runs times (after Warmup runs) and returns the RU each run cost, read from a
// [diagnostics.Meter] in the context it passes to op. op must make its Cosmos DB calls with that
// context, through a client that has diagnostics.Policy installed (cosmoskit.New installs it). It
// works against cosmostest (whose charges are a model, see cosmostest/ru.go) and against a real
// account (whose charges are the bill's).
//
// Errors: a *cosmoserr.ValidationError for a bad argument; the first error op returns, wrapped
// with the pattern's name; ctx's error; an error when the runs made no request the meter saw (the
// client has no diagnostics policy, or op ignores its context).
func Measure(ctx context.Context, pattern string, op func(ctx context.Context) error, opts MeasureOptions) (Measurement, error) {
	o := opts.Options()
	switch {
	case pattern == "":
		return Measurement{}, bad("pattern", "is required")
	case op == nil:
		return Measurement{}, bad("op", "is nil")
	case o.Runs < 0:
		return Measurement{}, bad("MeasureOptions.Runs", "must be 0 (the default) or more")
	case o.Warmup < 0:
		return Measurement{}, bad("MeasureOptions.Warmup", "must be 0 or more")
	}
	for range o.Warmup {
		if err := op(ctx); err != nil {
			return Measurement{}, fmt.Errorf("capacity: measuring %q (warm-up): %w", pattern, err)
		}
	}
	m := Measurement{Pattern: pattern, Runs: o.Runs, MinRU: math.Inf(1)}
	var total float64
	for range o.Runs {
		if err := ctx.Err(); err != nil {
			return Measurement{}, err
		}
		rctx, meter := diagnostics.WithMeter(ctx)
		if err := op(rctx); err != nil {
			return Measurement{}, fmt.Errorf("capacity: measuring %q: %w", pattern, err)
		}
		ru := meter.RequestCharge()
		total += ru
		m.Requests += meter.Requests()
		m.Throttles += meter.Throttles()
		m.MinRU = math.Min(m.MinRU, ru)
		m.MaxRU = math.Max(m.MaxRU, ru)
	}
	if m.Requests == 0 {
		return Measurement{}, fmt.Errorf(
			"capacity: measuring %q: no request was metered; run the operation with the context given, through a client with diagnostics.Policy installed (cosmoskit.New installs it)", pattern)
	}
	m.MeanRU = round2(total / float64(m.Runs))
	m.MinRU, m.MaxRU = round2(m.MinRU), round2(m.MaxRU)
	return m, nil
}
