package query

import "fmt"

// Error is a query failure the server reports as an HTTP error. Code is the service's error code
// ("BadRequest" for every error the engine raises); Message is the text the service puts in the body.
type Error struct {
	Code    string
	Message string
}

// Error implements the error interface.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

func badRequest(format string, args ...any) *Error {
	return &Error{Code: "BadRequest", Message: fmt.Sprintf(format, args...)}
}

func syntaxErrorNear(tok string) *Error {
	return badRequest("Syntax error, incorrect syntax near '%s'.", tok)
}

func syntaxErrorEOF() *Error {
	return badRequest("Syntax error, unexpected end-of-file.")
}
