package query

import "fmt"

// Error is a query failure the server reports as an HTTP error. Code is the service's error code
// ("BadRequest" for every error the engine raises); Message is the text the service puts in the body.
type Error struct {
	Code    string
	Message string
	// SubStatus is the x-ms-substatus the service sends with it; 0 for none.
	SubStatus int
}

// SubStatusNonFinite is the sub-status of the 400 for a result holding NaN or an infinity
// (the account's queryEngineConfiguration has sqlAllowNonFiniteNumbers false).
const SubStatusNonFinite = 4001

// nonFinite is the service's refusal of a query whose result holds a number JSON cannot write
// (recorded for LOG10(0) and LOG of a negative number: 400, 4001, this message).
func nonFinite() *Error {
	return &Error{Code: "BadRequest", SubStatus: SubStatusNonFinite,
		Message: "The response content contains a numeric value that cannot be represented in JSON (e.g. Infinity and NaN)."}
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
