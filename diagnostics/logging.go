package diagnostics

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/internal/opstate"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Log messages of the records the policy writes.
const (
	msgFailed    = "cosmoskit: operation failed"
	msgSlow      = "cosmoskit: slow operation"
	msgExpensive = "cosmoskit: expensive operation"
)

// log writes at most one record per operation: a failure (Warn, since the caller gets the error
// too; Debug for 404/409/412 with sub-status 0 and cancellations), else a slow or expensive
// operation (Warn). Records carry the SDK's diagnostics string, never headers, keys or parameter
// values.
func (p *Policy) log(ctx context.Context, raw *http.Request, op wire.Operation, out *outcome, d time.Duration, query string, st *opstate.State) {
	var level slog.Level
	var msg string
	var threshold time.Duration
	switch {
	case out.failed():
		msg, level = msgFailed, failureLevel(out)
	default:
		threshold = p.opts.nonPointThreshold()
		if op.Point {
			threshold = p.opts.pointThreshold()
		}
		// Time spent waiting for a client-side throughput group's budget is the caller's choice,
		// not a slow operation.
		slow := !p.opts.DisableLatencyLog && d-out.groupWait > threshold
		expensive := p.opts.RequestChargeThreshold > 0 && out.charge > p.opts.RequestChargeThreshold
		switch {
		case slow:
			msg, level = msgSlow, slog.LevelWarn
		case expensive:
			msg, level = msgExpensive, slog.LevelWarn
		default:
			return
		}
	}
	if !p.logger.Enabled(ctx, level) {
		return
	}
	if out.regions == nil {
		out.regions = p.contactedRegions(st, out)
	}
	attrs := make([]slog.Attr, 0, 16)
	attrs = append(attrs,
		slog.String(keyOperation, op.Name),
		slog.String(keyNamespace, op.Database),
		slog.String(keyCollection, op.Container),
		slog.Duration("duration", d),
		slog.Int("status", out.status),
		slog.Int("sub_status", out.sub),
		slog.String("activity_id", out.activityID),
		slog.Float64("request_charge", out.charge),
		slog.String(keyServerAddress, out.host),
	)
	if len(out.regions) > 0 {
		attrs = append(attrs, slog.Any("regions", out.regions))
	}
	if threshold > 0 {
		attrs = append(attrs, slog.Duration("latency_threshold", threshold))
	}
	if msg == msgExpensive {
		attrs = append(attrs, slog.Float64("request_charge_threshold", p.opts.RequestChargeThreshold))
	}
	if out.attempts > 1 {
		attrs = append(attrs, slog.Int("attempts", out.attempts))
	}
	if out.throttles > 0 {
		attrs = append(attrs, slog.Int("throttles", out.throttles))
	}
	if out.retryAfter > 0 {
		attrs = append(attrs, slog.Duration("retry_after", out.retryAfter))
	}
	if out.resp != nil && out.status >= 400 {
		if m := wire.ResponseMessage(out.resp); m != "" {
			attrs = append(attrs, slog.String("message", m))
		}
	}
	if out.status == 0 && out.err != nil {
		attrs = append(attrs, slog.String("error", out.err.Error()))
	}
	if query != "" {
		attrs = append(attrs, slog.String(keyQueryText, query))
	}
	attrs = append(attrs, slog.Any("diagnostics", diagnosticsValue{raw}))
	p.logger.LogAttrs(ctx, level, msg, attrs...)
}

// failureLevel is the level of a failed operation's record. Every failure the policy sees is also
// returned to the caller, who decides whether it is an error of theirs and may log it: a library
// logging it at Error too would make each one appear twice at that level. So a failure is Warn at
// most, and an expected answer (404, 409 and 412 with sub-status 0, the caller's cancellation) is
// Debug. Error is left for what the caller cannot see.
func failureLevel(out *outcome) slog.Level {
	if out.expected() {
		return slog.LevelDebug
	}
	return slog.LevelWarn
}

// diagnosticsValue renders the SDK's diagnostics of the operation whose request is r, lazily: only
// when a handler formats the record.
type diagnosticsValue struct{ r *http.Request }

func (v diagnosticsValue) LogValue() slog.Value {
	return slog.StringValue(requestDiagnostics(v.r).String())
}

// requestDiagnostics returns the SDK's diagnostics for the operation whose request is r. The SDK
// keeps them in the request context; azcosmos.DiagnosticsFromError is the exported way to reach
// them, so r is presented to it as the request of a response.
func requestDiagnostics(r *http.Request) azcosmos.Diagnostics {
	d, _ := azcosmos.DiagnosticsFromError(&azcore.ResponseError{RawResponse: &http.Response{Request: r}})
	return d
}
