// Package cosmoserr is the error model every cosmoskit package returns: the typed [*Error], the
// sentinels, [*ValidationError] and the classifiers.
//
//	item, err := orders.Get(ctx, pk, id) // or cosmoserr.FromError(op, err) after a raw azcosmos call
//	var refused *cosmoserr.ValidationError
//	switch {
//	case errors.Is(err, cosmoserr.ErrNotFound): // 404, whichever package answered
//	case errors.As(err, &refused): // nothing was sent; refused.Field names the input
//	case cosmoserr.IsRetryable(err): // a 429, 503, 408, ... that outlived the retry policy
//	}
//
// The typed [*Error] is that of a failed Cosmos DB call; it matches the sentinels with errors.Is
// (ErrNotFound, ErrConflict, ...), and [IsRetryable] and [IsTimeout] classify any error. It
// imports neither OpenTelemetry nor azidentity, so code that wraps a plain
// *azcosmos.ContainerClient can use it alone.
//
// It is the one home of every error value cosmoskit returns: the sentinels of service answers,
// the Kinds of [*ValidationError] (every refusal before a request is sent, whichever package
// refused it), the operation names and the classifiers. No other package declares or re-exports
// them; packages keep only error types that carry their own data (repository.BatchError,
// changefeed.HandlerError, crosspartition.UnsupportedError, ...), and those match these sentinels.
package cosmoserr
