package vector

import (
	"fmt"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// invalid is the package's refusal of a search before sending: a *cosmoserr.ValidationError.
// Field is one of "Vector", "K", "Where", "Filter", "PartitionKey", "Fields", "Path"; the reason
// never echoes a vector or parameter value.
func invalid(kind error, field, format string, args ...any) error {
	return &cosmoserr.ValidationError{Kind: kind, Field: field, Reason: fmt.Sprintf(format, args...)}
}
