package wire

import (
	"math"
	"net/http"
	"strconv"
	"time"
)

// RetryAfter returns the server's retry hint, read as azcore's retry policy reads it (rest_protocol
// §12.2): the first of Retry-After-Ms and x-ms-retry-after-ms (milliseconds) and Retry-After
// (delay-seconds, or an HTTP date taken relative to now(), called only then) that holds a positive value; 0 when none
// does. The millisecond headers accept a plain decimal number ("50", "12.5": the gateway sends whole
// milliseconds, but a fraction is kept rather than refused); signs, exponents, hex, NaN and Inf are
// not numbers here. A hint too large for a Duration saturates at the largest one, so a hostile
// header never turns into a negative wait.
func RetryAfter(h http.Header, now func() time.Time) time.Duration {
	for _, k := range [...]string{HeaderRetryAfterMsStd, HeaderRetryAfterMs} {
		if d := parseMillis(h.Get(k)); d > 0 {
			return d
		}
	}
	v := h.Get(HeaderRetryAfter)
	if v == "" {
		return 0
	}
	if s, ok := parseDigits(v); ok {
		if s > math.MaxInt64/int64(time.Second) {
			return time.Duration(math.MaxInt64)
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if n := now(); t.After(n) {
			return t.Sub(n)
		}
	}
	return 0
}

// parseMillis parses "<digits>[.<digits>]" milliseconds; 0 for anything else.
func parseMillis(v string) time.Duration {
	if v == "" {
		return 0
	}
	dot := false
	digits := 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return 0
		}
	}
	if digits == 0 {
		return 0
	}
	ms, err := strconv.ParseFloat(v, 64)
	if err != nil && ms == 0 {
		return 0
	}
	ns := ms * float64(time.Millisecond)
	if !(ns < float64(math.MaxInt64)) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(ns)
}

// parseDigits parses a non-empty run of ASCII digits, saturating at MaxInt64.
func parseDigits(v string) (int64, bool) {
	if v == "" {
		return 0, false
	}
	var n int64
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (math.MaxInt64-int64(c-'0'))/10 {
			n = math.MaxInt64
			continue
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// RequestCharge returns the x-ms-request-charge of a response: a finite, non-negative number of
// request units, 0 when absent or not such a number.
func RequestCharge(h http.Header) float64 {
	v := h.Get(HeaderRequestCharge)
	if v == "" {
		return 0
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f >= 0) || math.IsInf(f, 1) {
		return 0
	}
	return f
}

// SubStatus returns the x-ms-substatus of a response, 0 when absent or not a non-negative integer.
func SubStatus(h http.Header) int {
	v := h.Get(HeaderSubStatus)
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
