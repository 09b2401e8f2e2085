package cosmostest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
)

// Sub-status codes the server sends (x-ms-substatus).
const (
	subNone                 = 0
	subWriteForbidden       = 3
	subPartitionKeyMismatch = 1001
	subPartitionKeyGone     = 1002 // with 410: PartitionKeyRangeGone (runtime split)
	subOwnerNotFound        = 1003
	subCrossPartitionQuery  = 1004
)

// statusError is a service error: HTTP status, sub-status and the service's body code and message.
type statusError struct {
	status    int
	substatus int
	code      string
	message   string
	// extra fields merged into the body (e.g. additionalErrorInfo).
	extra map[string]any
	// header values added to the response (e.g. x-ms-retry-after-ms).
	header http.Header
}

func (e *statusError) Error() string {
	return fmt.Sprintf("%d/%d %s: %s", e.status, e.substatus, e.code, e.message)
}

// errorCodes maps statuses to the body "code" values the service uses.
var errorCodes = map[int]string{
	400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 405: "MethodNotAllowed",
	408: "RequestTimeout", 409: "Conflict", 410: "Gone", 412: "PreconditionFailed",
	413: "RequestEntityTooLarge", 424: "FailedDependency", 429: "TooManyRequests", 449: "RetryWith",
	500: "InternalServerError", 501: "NotImplemented", 503: "ServiceUnavailable",
}

// newError builds a statusError whose code is the service's code for status.
func newError(status, substatus int, format string, args ...any) *statusError {
	code := errorCodes[status]
	if code == "" {
		code = http.StatusText(status)
	}
	return &statusError{status: status, substatus: substatus, code: code, message: fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) *statusError {
	return newError(http.StatusBadRequest, subNone, format, args...)
}

// unsupported is the honest answer for a feature cosmostest does not implement.
func unsupported(feature string) *statusError {
	return badRequest("cosmostest does not support %s.", feature)
}

func notFoundItem() *statusError {
	return newError(http.StatusNotFound, subNone, "Entity with the specified id does not exist in the system. More info: https://aka.ms/cosmosdb-tsg-not-found")
}

func ownerNotFound(what string) *statusError {
	return newError(http.StatusNotFound, subOwnerNotFound, "Owner resource does not exist: %s", what)
}

func conflict() *statusError {
	return newError(http.StatusConflict, subNone, "Entity with the specified id already exists in the system.")
}

func preconditionFailed() *statusError {
	return newError(http.StatusPreconditionFailed, subNone, "Operation cannot be performed because one of the specified precondition is not met.")
}

// errorBody renders the service's error body, ending the message with the activity id line.
func errorBody(e *statusError, activityID string) []byte {
	body := map[string]any{}
	for k, v := range e.extra {
		body[k] = v
	}
	body["code"] = e.code
	body["message"] = e.message + "\r\nActivityId: " + activityID + ", Microsoft.Azure.Documents.Common/2.14.0"
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		return []byte(`{"code":"InternalServerError","message":"cosmostest: cannot render error"}`)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
