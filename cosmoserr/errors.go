package cosmoserr

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/internal/opstate"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Sentinel errors. An [*Error] matches one of them with errors.Is by its status code, so callers
// never compare status codes themselves.
var (
	// ErrBadRequest matches status 400 (a malformed request or query).
	ErrBadRequest = errors.New("cosmoskit: bad request")
	// ErrUnauthorized matches status 401 (wrong key or token).
	ErrUnauthorized = errors.New("cosmoskit: unauthorized")
	// ErrNotFound matches status 404, except sub-status 1002 (read session not available),
	// which is a consistency condition, not a missing resource.
	ErrNotFound = errors.New("cosmoskit: not found")
	// ErrConflict matches status 409 (the id already exists in the partition).
	ErrConflict = errors.New("cosmoskit: conflict")
	// ErrPreconditionFailed matches status 412 (an If-Match ETag did not match).
	ErrPreconditionFailed = errors.New("cosmoskit: precondition failed")
	// ErrThrottled matches status 429 (request rate too large), after every retry was spent.
	ErrThrottled = errors.New("cosmoskit: throttled")
	// ErrUnavailable matches status 503 (service unavailable).
	ErrUnavailable = errors.New("cosmoskit: service unavailable")
	// ErrSessionNotAvailable matches status 404 with sub-status 1002 (read session not
	// available): the regions the request reached had not yet caught up with the session token it
	// carried, after the retries (package retry waits in the region, then azcosmos tries the write
	// region). The item may well exist: retry later, or read without the token. It is retryable.
	ErrSessionNotAvailable = errors.New("cosmoskit: read session not available")
	// ErrInvalidToken matches a continuation (page) token that was not returned for the same
	// query: tampered, truncated, or from another query, parameters, scope or container. It is
	// found before anything is sent. repository and crosspartition return it.
	ErrInvalidToken = errors.New("cosmoskit: invalid continuation token")
)

// sentinels maps each wire.Kind to its sentinel: the one status rule (wire.KindOf) for every
// error, including each operation's result in a transactional batch.
var sentinels = [...]error{
	wire.KindNone:                nil,
	wire.KindBadRequest:          ErrBadRequest,
	wire.KindUnauthorized:        ErrUnauthorized,
	wire.KindNotFound:            ErrNotFound,
	wire.KindConflict:            ErrConflict,
	wire.KindPreconditionFailed:  ErrPreconditionFailed,
	wire.KindThrottled:           ErrThrottled,
	wire.KindUnavailable:         ErrUnavailable,
	wire.KindSessionNotAvailable: ErrSessionNotAvailable,
}

// Sentinel returns the sentinel a status and sub-status match (ErrNotFound for 404 but not for
// 404/1002, ...), nil when none does. Use it to classify a status that did not come as an error,
// such as one operation's status in a transactional batch response.
func Sentinel(status, subStatus int) error {
	return sentinels[wire.KindOf(status, subStatus)]
}

// Error is the error every cosmoskit package returns for a failed Cosmos DB call. Use errors.As to
// read it and errors.Is with the sentinels (ErrNotFound, ...) to test it. It unwraps to the error
// the SDK returned, so errors.As(err, new(*azcore.ResponseError)) and errors.Is(err,
// context.DeadlineExceeded) keep working. Its message never contains the account key, request
// headers or query parameter values.
type Error struct {
	// Operation is the operation name, e.g. "read_item" (see the Op constants).
	Operation string
	// Database and Container are the resource ids, "" when not known.
	Database, Container string
	// Type is the document type the caller works with, "" when not known: package repository
	// sets it to the repository's type on the errors it returns.
	Type string
	// ID is the item id of an item operation (read from the request path when FromError sees
	// one), "" otherwise.
	ID string
	// StatusCode is the HTTP status of the final response; 0 when no response was received
	// (transport error, cancellation).
	StatusCode int
	// SubStatus is the x-ms-substatus header of the final response (0 when absent).
	SubStatus int
	// ActivityID is the x-ms-activity-id of the operation, the id Azure support asks for.
	ActivityID string
	// RequestCharge is the request units the operation consumed: the sum over every attempt when
	// the attempt policy is installed, else the final response's x-ms-request-charge.
	RequestCharge float64
	// RetryAfter is the server's retry hint (x-ms-retry-after-ms) on the final response, 0 if none.
	RetryAfter time.Duration
	// Attempts is the number of HTTP attempts the operation made, 0 when unknown (the attempt
	// policy is not installed or no response came back).
	Attempts int
	// Message is the first line of the service's error message, "" if there is none.
	Message string
	// Diagnostics are the SDK's request diagnostics; Diagnostics.String() renders them as JSON.
	Diagnostics azcosmos.Diagnostics
	// Err is the wrapped error (usually an *azcore.ResponseError).
	Err error
}

// Error returns one line that names each thing once:
//
//	cosmoskit: <op> <db>/<container> [<type>] ["<id>"]: <status> <text> (sub-status <n>, activity id <id>, <RU> RU[, <n> attempts][, retry after <d>]): <service message>
//
// or, when no response was received, "cosmoskit: <op> <db>/<container> ...: <the wrapped error>".
// For example: cosmoskit: read_item shop/orders order "o-1": 404 Not Found (sub-status 0, activity
// id 5f0c…, 1 RU): Entity with the specified id does not exist in the system.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("cosmoskit: ")
	if e.Operation != "" {
		b.WriteString(e.Operation)
	} else {
		b.WriteString("operation")
	}
	if e.Database != "" || e.Container != "" {
		b.WriteByte(' ')
		b.WriteString(e.Database)
		if e.Container != "" {
			b.WriteByte('/')
			b.WriteString(e.Container)
		}
	}
	if e.Type != "" {
		b.WriteByte(' ')
		b.WriteString(e.Type)
	}
	if e.ID != "" {
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(e.ID))
	}
	b.WriteString(": ")
	if e.StatusCode == 0 {
		if e.Err != nil {
			b.WriteString(e.Err.Error())
		} else {
			b.WriteString("failed")
		}
		return b.String()
	}
	b.WriteString(strconv.Itoa(e.StatusCode))
	if t := http.StatusText(e.StatusCode); t != "" {
		b.WriteByte(' ')
		b.WriteString(t)
	}
	b.WriteString(" (sub-status ")
	b.WriteString(strconv.Itoa(e.SubStatus))
	if e.ActivityID != "" {
		b.WriteString(", activity id ")
		b.WriteString(e.ActivityID)
	}
	b.WriteString(", ")
	b.WriteString(strconv.FormatFloat(e.RequestCharge, 'f', -1, 64))
	b.WriteString(" RU")
	if e.Attempts > 1 {
		b.WriteString(", ")
		b.WriteString(strconv.Itoa(e.Attempts))
		b.WriteString(" attempts")
	}
	if e.RetryAfter > 0 {
		b.WriteString(", retry after ")
		b.WriteString(e.RetryAfter.String())
	}
	b.WriteByte(')')
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// Unwrap returns the wrapped error.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is the sentinel for e's status code (see ErrNotFound and the others).
func (e *Error) Is(target error) bool {
	s := Sentinel(e.StatusCode, e.SubStatus)
	return s != nil && s == target
}

// Retryable reports whether the failure is transient, so the same request may succeed later.
// Transient are 408, 404/1002 (read session not available), 410, 429, 449, 500, 502, 503, 504, and
// transport errors that are not the caller's own cancellation or deadline. It does not say a write
// is safe to repeat: after a timeout or a dropped connection the write may have been applied.
func (e *Error) Retryable() bool {
	switch e.StatusCode {
	case 0:
		if e.Err == nil || errors.Is(e.Err, context.Canceled) || errors.Is(e.Err, context.DeadlineExceeded) {
			return false
		}
		// An error below that classifies itself (the retry package's "every region failed")
		// knows better than the transport checks.
		var r interface{ Retryable() bool }
		if errors.As(e.Err, &r) {
			return r.Retryable()
		}
		return retryableTransport(e.Err)
	case http.StatusNotFound:
		return e.SubStatus == wire.SubStatusReadSessionNotAvailable
	case http.StatusRequestTimeout, http.StatusGone, http.StatusTooManyRequests, wire.StatusRetryWith,
		http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable,
		http.StatusGatewayTimeout:
		return true
	}
	return false
}

// Timeout reports whether the operation timed out: status 408, or no response because a deadline
// (the caller's or the transport's) expired.
func (e *Error) Timeout() bool {
	if e.StatusCode == http.StatusRequestTimeout {
		return true
	}
	if e.StatusCode != 0 || e.Err == nil {
		return false
	}
	var t interface{ Timeout() bool }
	if errors.As(e.Err, &t) && t.Timeout() {
		return true
	}
	return timeoutErr(e.Err)
}

// IsRetryable reports whether err is a transient Cosmos DB failure that may succeed when retried
// (see [Error.Retryable]). It looks for an error with a Retryable() bool method in the chain, then
// for an *azcore.ResponseError, then for a network error; nil, context cancellation and deadline
// errors are not retryable.
func IsRetryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var r interface{ Retryable() bool }
	if errors.As(err, &r) {
		return r.Retryable()
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		e := &Error{StatusCode: re.StatusCode}
		if re.RawResponse != nil {
			e.SubStatus = wire.SubStatus(re.RawResponse.Header)
		}
		return e.Retryable()
	}
	return retryableTransport(err)
}

// IsTimeout reports whether err is a timeout: status 408, context.DeadlineExceeded, or a network
// error whose Timeout() is true. It looks for an error with a Timeout() bool method in the chain.
func IsTimeout(err error) bool {
	if err == nil {
		return false
	}
	var t interface{ Timeout() bool }
	if errors.As(err, &t) && t.Timeout() {
		return true
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) && re.StatusCode == http.StatusRequestTimeout {
		return true
	}
	return timeoutErr(err)
}

func timeoutErr(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// retryableTransport reports whether a failure without a response is worth retrying: network
// errors, dropped connections (EOF, reset, refused), but not the caller's cancellation or deadline,
// certificate failures, or a host name that does not exist.
func retryableTransport(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	if errors.As(err, &certErr) || errors.As(err, &unknownAuth) || errors.As(err, &hostErr) || errors.As(err, &invalid) {
		return false
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return !dnsErr.IsNotFound
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// FromError returns err as an [*Error] for operation op, reading the status, sub-status, activity
// id, request charge and retry-after from the SDK's *azcore.ResponseError and the diagnostics from
// azcosmos.DiagnosticsFromError. op may be "" to name the operation from the failed request. It
// returns nil for nil, and err unchanged when it already contains an *Error (so wrapping twice is
// harmless). Any other error is wrapped too, with StatusCode 0.
func FromError(op string, err error) error {
	if err == nil {
		return nil
	}
	var existing *Error
	if errors.As(err, &existing) {
		return err
	}
	e := &Error{Operation: op, Err: err}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		e.StatusCode = re.StatusCode
		if resp := re.RawResponse; resp != nil {
			fillFromResponse(e, resp)
		}
	}
	if d, ok := azcosmos.DiagnosticsFromError(err); ok {
		e.Diagnostics = d
	}
	return e
}

func fillFromResponse(e *Error, resp *http.Response) {
	if e.StatusCode == 0 {
		e.StatusCode = resp.StatusCode
	}
	h := resp.Header
	e.SubStatus = wire.SubStatus(h)
	e.ActivityID = h.Get(wire.HeaderActivityID)
	e.RequestCharge = wire.RequestCharge(h)
	e.RetryAfter = wire.RetryAfter(h, time.Now)
	e.Message = wire.ResponseMessage(resp)
	if req := resp.Request; req != nil {
		op := wire.Classify(req)
		if e.Operation == "" {
			e.Operation = op.Name
		}
		e.Database, e.Container, e.ID = op.Database, op.Container, op.Item
		if st := opstate.From(req.Context()); st != nil {
			if s := st.Snapshot(); s.Attempts > 0 {
				e.Attempts = s.Attempts
				e.RequestCharge = s.RequestCharge
			}
		}
	}
}
