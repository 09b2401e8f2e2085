package vector

import (
	"fmt"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

func invalid(kind error, field, format string, args ...any) error {
	return &cosmoserr.ValidationError{Kind: kind, Field: field, Reason: fmt.Sprintf(format, args...)}
}
