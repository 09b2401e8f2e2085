package cosmoserr

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// responseError builds the *azcore.ResponseError azcosmos returns for a failed call.
func responseError(t *testing.T, method, url string, status int, headers map[string]string, body string) error {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp := &http.Response{
		StatusCode: status,
		Status:     fmt.Sprintf("%d %s", status, http.StatusText(status)),
		Header:     http.Header{},
		Body:       io.NopCloser(strings.NewReader(body)),
		Request:    req,
	}
	for k, v := range headers {
		resp.Header.Set(k, v)
	}
	return runtime.NewResponseErrorWithErrorCode(resp, resp.Status)
}

const itemURL = "https://127.0.0.1:8081/dbs/db1/colls/c1/docs/item1"

func TestFromErrorReadsResponse(t *testing.T) {
	re := responseError(t, "GET", itemURL, 429, map[string]string{
		"x-ms-substatus":      "3200",
		"x-ms-activity-id":    "8b4b3bd2-0000-0000-0000-000000000001",
		"x-ms-request-charge": "0.5",
		"x-ms-retry-after-ms": "250",
	}, `{"code":"TooManyRequests","message":"Message: {\"Errors\":[\"Request rate is large. More Request Units may be needed, so no changes were made.\"]}\r\nActivityId: 8b4b3bd2, Microsoft.Azure.Documents.Common/2.14.0"}`)
	err := FromError("", fmt.Errorf("sdk: %w", re))

	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("FromError returned %T, want *Error", err)
	}
	want := Error{Operation: OpReadItem, Database: "db1", Container: "c1", ID: "item1", StatusCode: 429, SubStatus: 3200,
		ActivityID: "8b4b3bd2-0000-0000-0000-000000000001", RequestCharge: 0.5, RetryAfter: 250 * time.Millisecond,
		Message: "Request rate is large. More Request Units may be needed, so no changes were made."}
	got := *e
	got.Err, got.Diagnostics = nil, want.Diagnostics
	if got != want {
		t.Errorf("FromError fields\n got %+v\nwant %+v", got, want)
	}
	if !errors.Is(err, ErrThrottled) || errors.Is(err, ErrNotFound) {
		t.Errorf("errors.Is: throttled=%v notfound=%v", errors.Is(err, ErrThrottled), errors.Is(err, ErrNotFound))
	}
	var raw *azcore.ResponseError
	if !errors.As(err, &raw) || raw.StatusCode != 429 {
		t.Errorf("errors.As(*azcore.ResponseError) = %v", raw)
	}
	const wantMsg = `cosmoskit: read_item db1/c1 "item1": 429 Too Many Requests (sub-status 3200, activity id 8b4b3bd2-0000-0000-0000-000000000001, 0.5 RU, retry after 250ms): Request rate is large. More Request Units may be needed, so no changes were made.`
	if msg := err.Error(); msg != wantMsg {
		t.Errorf("Error()\n got %s\nwant %s", msg, wantMsg)
	}
	if !IsRetryable(err) || IsTimeout(err) {
		t.Errorf("IsRetryable=%v IsTimeout=%v, want true false", IsRetryable(err), IsTimeout(err))
	}
}

func TestFromErrorSentinels(t *testing.T) {
	tests := []struct {
		status, sub int
		want        error
		retryable   bool
		timeout     bool
	}{
		{400, 0, ErrBadRequest, false, false},
		{401, 0, ErrUnauthorized, false, false},
		{403, 3, nil, false, false},
		{404, 0, ErrNotFound, false, false},
		{404, 1003, ErrNotFound, false, false},
		{404, 1002, ErrSessionNotAvailable, true, false},
		{408, 0, nil, true, true},
		{409, 0, ErrConflict, false, false},
		{410, 1002, nil, true, false},
		{412, 0, ErrPreconditionFailed, false, false},
		{413, 0, nil, false, false},
		{429, 3200, ErrThrottled, true, false},
		{449, 0, nil, true, false},
		{500, 0, nil, true, false},
		{503, 0, ErrUnavailable, true, false},
	}
	sentinels := []error{ErrBadRequest, ErrUnauthorized, ErrNotFound, ErrConflict, ErrPreconditionFailed, ErrThrottled, ErrUnavailable, ErrSessionNotAvailable}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d/%d", tt.status, tt.sub), func(t *testing.T) {
			err := FromError(OpReadItem, responseError(t, "GET", itemURL, tt.status,
				map[string]string{"x-ms-substatus": fmt.Sprint(tt.sub)}, ""))
			for _, s := range sentinels {
				if got := errors.Is(err, s); got != (tt.want != nil && errors.Is(s, tt.want)) {
					t.Errorf("errors.Is(%v) = %v", s, got)
				}
			}
			if got := IsRetryable(err); got != tt.retryable {
				t.Errorf("IsRetryable = %v, want %v", got, tt.retryable)
			}
			if got := IsTimeout(err); got != tt.timeout {
				t.Errorf("IsTimeout = %v, want %v", got, tt.timeout)
			}
		})
	}
}

func TestFromErrorNilAndIdempotent(t *testing.T) {
	if FromError("read_item", nil) != nil {
		t.Fatal("FromError(nil) != nil")
	}
	first := FromError(OpReadItem, responseError(t, "GET", itemURL, 404, nil, ""))
	if second := FromError(OpQueryItems, first); second != first { //nolint:errorlint // identity is the point
		t.Errorf("FromError(*Error) = %v, want the same error", second)
	}
	wrapped := fmt.Errorf("repository: %w", first)
	if again := FromError("x", wrapped); again != wrapped { //nolint:errorlint // identity is the point
		t.Errorf("FromError(wrapped *Error) rewrapped it: %v", again)
	}
}

func TestFromErrorTransport(t *testing.T) {
	cause := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	err := FromError(OpReadItem, cause)
	var e *Error
	if !errors.As(err, &e) || e.StatusCode != 0 {
		t.Fatalf("FromError(transport) = %#v", err)
	}
	if got := err.Error(); got != "cosmoskit: read_item: dial tcp: connection refused" {
		t.Errorf("Error() = %q", got)
	}
	if !IsRetryable(err) {
		t.Error("a dial error should be retryable")
	}
	if !errors.Is(err, cause) {
		t.Error("errors.Is(err, cause) = false")
	}
}

type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

// classified is an error that says itself whether it is retryable and a timeout, like the retry
// package's "every region failed" error (which is not a net.Error).
type classified struct{ retryable, timeout bool }

func (classified) Error() string     { return "every region failed" }
func (c classified) Retryable() bool { return c.retryable }
func (c classified) Timeout() bool   { return c.timeout }

func TestPredicates(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		retryable bool
		timeout   bool
	}{
		{"nil", nil, false, false},
		{"canceled", FromError(OpReadItem, context.Canceled), false, false},
		{"deadline", FromError(OpReadItem, fmt.Errorf("x: %w", context.DeadlineExceeded)), false, true},
		{"os deadline", os.ErrDeadlineExceeded, true, true}, // a socket deadline, not the caller's context
		{"net timeout", FromError(OpReadItem, timeoutError{}), true, true},
		{"plain", errors.New("boom"), false, false},
		{"eof", &url.Error{Op: "Post", URL: "https://h/", Err: io.EOF}, true, false},
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, true, false},
		{"unknown authority", &url.Error{Op: "Get", URL: "https://h/", Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}}, false, false},
		{"no such host", &url.Error{Op: "Get", URL: "https://h/", Err: &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "h", IsNotFound: true}}}, false, false},
		{"dns timeout", &net.DNSError{Err: "timeout", Name: "h", IsTimeout: true}, true, true},
		{"wrapped self-classified", FromError(OpReadItem, fmt.Errorf("x: %w", classified{true, true})), true, true},
		{"wrapped self-classified, permanent", FromError(OpReadItem, classified{false, false}), false, false},
		{"raw 503", responseError(t, "GET", itemURL, 503, nil, ""), true, false},
		{"raw 408", responseError(t, "GET", itemURL, 408, nil, ""), true, true},
		{"raw 404", responseError(t, "GET", itemURL, 404, nil, ""), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsRetryable(tt.err); got != tt.retryable {
				t.Errorf("IsRetryable = %v, want %v", got, tt.retryable)
			}
			if got := IsTimeout(tt.err); got != tt.timeout {
				t.Errorf("IsTimeout = %v, want %v", got, tt.timeout)
			}
		})
	}
}

// TestRetryAfterSemantics: the retry hint of an *Error is read like azcore and the retry layer read
// it (internal/wire): Retry-After is whole seconds or an HTTP date, the millisecond headers plain
// decimals; an exponent or a fractional Retry-After is not a hint. (diagnostics used to read
// "2.5" seconds and "1e3" milliseconds while the retry layer ignored them.)
func TestRetryAfterSemantics(t *testing.T) {
	tests := []struct {
		headers map[string]string
		want    time.Duration
	}{
		{map[string]string{"Retry-After": "2.5"}, 0},
		{map[string]string{"Retry-After-Ms": "1e3"}, 0},
		{map[string]string{"Retry-After": "2"}, 2 * time.Second},
		{map[string]string{"x-ms-retry-after-ms": "12.5"}, 12500 * time.Microsecond},
	}
	for _, tt := range tests {
		var e *Error
		if !errors.As(FromError(OpReadItem, responseError(t, "GET", itemURL, 429, tt.headers, "")), &e) {
			t.Fatal("no *Error")
		}
		if e.RetryAfter != tt.want {
			t.Errorf("%v: RetryAfter = %v, want %v", tt.headers, e.RetryAfter, tt.want)
		}
	}
}

func TestValidationError(t *testing.T) {
	kind := errors.New("pkg: invalid thing")
	err := error(&ValidationError{Kind: kind, Field: "id", Reason: "is empty"})
	if !errors.Is(err, ErrValidation) || !errors.Is(err, kind) || errors.Is(err, ErrNotFound) {
		t.Errorf("errors.Is wrong for %v", err)
	}
	if got := err.Error(); got != "pkg: invalid thing: id: is empty" {
		t.Errorf("Error() = %q", got)
	}
	noKind := &ValidationError{Field: "x", Reason: "bad"}
	if got := noKind.Error(); got != "cosmoskit: invalid argument: x: bad" || !errors.Is(noKind, ErrValidation) {
		t.Errorf("without Kind: %q", got)
	}
	var ve *ValidationError
	if !errors.As(fmt.Errorf("wrapped: %w", err), &ve) || ve.Field != "id" {
		t.Error("errors.As through a wrap failed")
	}
}

// TestErrNoPolicyMessage: ErrNoPolicy is the one sentinel for a missing policy, vector embedding or
// full-text, so its message names both (it said "no vector embedding policy" for either).
func TestErrNoPolicyMessage(t *testing.T) {
	msg := ErrNoPolicy.Error()
	if !strings.Contains(msg, "vector embedding") || !strings.Contains(msg, "full-text") {
		t.Fatalf("ErrNoPolicy says %q: want both policies named", msg)
	}
	err := &ValidationError{Kind: ErrNoPolicy, Field: "Path", Reason: "container \"c\" has no vector embedding policy"}
	if !errors.Is(err, ErrNoPolicy) || !errors.Is(err, ErrValidation) {
		t.Fatalf("%v does not match ErrNoPolicy and ErrValidation", err)
	}
}
