package retry

import (
	"net/http"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// unsendableError is a request that no region could ever accept, found before anything is sent: a
// header whose name or value no HTTP request may carry (an end user's page token with a newline
// passed on as the continuation, say). It matches cosmoserr.ErrBadRequest, is not retryable, and
// says nothing about any region's health, so no breaker counts it. Being a refusal before sending,
// it unwraps to a *cosmoserr.ValidationError (cosmoserr.ErrValidation) naming the header.
type unsendableError struct{ header string }

func (e *unsendableError) Error() string {
	return "request cannot be sent: header " + e.header + " holds characters no HTTP header may carry"
}

func (e *unsendableError) Is(target error) bool { return target == cosmoserr.ErrBadRequest }

// Unwrap returns the refusal as a *cosmoserr.ValidationError.
func (e *unsendableError) Unwrap() error {
	return &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "header " + e.header,
		Reason: "holds characters no HTTP header may carry"}
}

// Retryable reports false: the same request fails the same way.
func (e *unsendableError) Retryable() bool { return false }

// unsendableRequest is the final error of a request with header h that cannot be sent.
func unsendableRequest(op wire.Operation, h string) error {
	return &finalError{&cosmoserr.Error{Operation: op.Name, Database: op.Database, Container: op.Container,
		Err: &unsendableError{header: h}}}
}

// unsendable returns the name of the first header of h that net/http would refuse to send (a
// name that is not an RFC 9110 token, or a value with a control character other than tab), ""
// when every header can be sent. It allocates nothing.
func unsendable(h http.Header) string {
	for k, vs := range h {
		if !validHeaderName(k) {
			return "(invalid name)"
		}
		for _, v := range vs {
			for i := 0; i < len(v); i++ {
				if c := v[i]; (c < 0x20 && c != '\t') || c == 0x7f {
					return k
				}
			}
		}
	}
	return ""
}

func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '!', c == '#', c == '$', c == '%', c == '&', c == '\'', c == '*', c == '+', c == '-',
			c == '.', c == '^', c == '_', c == '`', c == '|', c == '~':
		default:
			return false
		}
	}
	return true
}
