package wire

import (
	"math"
	"net/http"
	"testing"
	"time"
)

var at = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func now() time.Time { return at }

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		name string
		h    http.Header
		want time.Duration
	}{
		{"none", http.Header{}, 0},
		{"x-ms ms", http.Header{"X-Ms-Retry-After-Ms": {"50"}}, 50 * time.Millisecond},
		{"fractional ms", http.Header{"Retry-After-Ms": {"12.5"}}, 12500 * time.Microsecond},
		{"Retry-After-Ms first", http.Header{"Retry-After-Ms": {"7"}, "X-Ms-Retry-After-Ms": {"50"}}, 7 * time.Millisecond},
		{"zero falls through", http.Header{"Retry-After-Ms": {"0"}, "X-Ms-Retry-After-Ms": {"50"}}, 50 * time.Millisecond},
		{"seconds", http.Header{"Retry-After": {"2"}}, 2 * time.Second},
		// RFC 9110 delay-seconds is an integer; azcore's Atoi refuses "2.5" too.
		{"fractional seconds", http.Header{"Retry-After": {"2.5"}}, 0},
		{"http date", http.Header{"Retry-After": {at.Add(3 * time.Second).Format(http.TimeFormat)}}, 3 * time.Second},
		{"past date", http.Header{"Retry-After": {at.Add(-time.Second).Format(http.TimeFormat)}}, 0},
		{"junk", http.Header{"X-Ms-Retry-After-Ms": {"junk"}}, 0},
		{"NaN", http.Header{"X-Ms-Retry-After-Ms": {"NaN"}}, 0},
		{"Inf", http.Header{"X-Ms-Retry-After-Ms": {"Inf"}}, 0},
		{"exponent", http.Header{"X-Ms-Retry-After-Ms": {"1e3"}}, 0},
		{"hex", http.Header{"X-Ms-Retry-After-Ms": {"0x10"}}, 0},
		{"negative", http.Header{"X-Ms-Retry-After-Ms": {"-5"}}, 0},
		{"dot only", http.Header{"X-Ms-Retry-After-Ms": {"."}}, 0},
		{"huge ms", http.Header{"X-Ms-Retry-After-Ms": {"99999999999999999999999"}}, time.Duration(math.MaxInt64)},
		{"huge s", http.Header{"Retry-After": {"99999999999999999999999"}}, time.Duration(math.MaxInt64)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RetryAfter(tt.h, now); got != tt.want {
				t.Errorf("RetryAfter(%v) = %v, want %v", tt.h, got, tt.want)
			}
		})
	}
}

func TestRequestChargeAndSubStatus(t *testing.T) {
	for v, want := range map[string]float64{"": 0, "1": 1, "2.86": 2.86, "-1": 0, "NaN": 0, "+Inf": 0, "x": 0} {
		if got := RequestCharge(http.Header{"X-Ms-Request-Charge": {v}}); got != want {
			t.Errorf("RequestCharge(%q) = %v, want %v", v, got, want)
		}
	}
	for v, want := range map[string]int{"": 0, "0": 0, "1002": 1002, "-3": 0, "x": 0} {
		if got := SubStatus(http.Header{"X-Ms-Substatus": {v}}); got != want {
			t.Errorf("SubStatus(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestKindOf(t *testing.T) {
	tests := []struct {
		status, sub int
		want        Kind
	}{
		{200, 0, KindNone}, {400, 0, KindBadRequest}, {401, 0, KindUnauthorized}, {404, 0, KindNotFound},
		{404, 1002, KindSessionNotAvailable}, {409, 0, KindConflict}, {412, 0, KindPreconditionFailed},
		{429, 3200, KindThrottled}, {503, 0, KindUnavailable}, {500, 0, KindNone}, {403, 3, KindNone},
	}
	for _, tt := range tests {
		if got := KindOf(tt.status, tt.sub); got != tt.want {
			t.Errorf("KindOf(%d, %d) = %v, want %v", tt.status, tt.sub, got, tt.want)
		}
	}
	if !SDKRetries(404, 1002) || !SDKRetries(403, 3) || !SDKRetries(403, 1008) || SDKRetries(404, 0) || SDKRetries(403, 0) {
		t.Error("SDKRetries")
	}
}

func TestCanonicalRegion(t *testing.T) {
	for _, in := range []string{"West US 2", "westus2", " WEST\tus2 ", "West\u00a0US\u20002"} {
		if got := CanonicalRegion(in); got != "westus2" {
			t.Errorf("CanonicalRegion(%q) = %q", in, got)
		}
	}
}

func TestParseAccount(t *testing.T) {
	a, ok := ParseAccount([]byte(`{"writableLocations":[{"name":"West US","databaseAccountEndpoint":"https://a-westus.documents.azure.com:443/"}],
		"readableLocations":[{"name":"West US","databaseAccountEndpoint":"https://a-westus.documents.azure.com:443/"},{"name":"East US 2","databaseAccountEndpoint":"::"},{"name":"North Europe","databaseAccountEndpoint":"https://a-ne.documents.azure.com:443/"}],
		"enableMultipleWriteLocations":true}`))
	if !ok || !a.MultiWrite || len(a.Writable) != 1 || len(a.Readable) != 2 {
		t.Fatalf("ParseAccount = %+v, %v", a, ok)
	}
	if r := a.Readable[1]; r.Name != "North Europe" || r.Key != "northeurope" || r.Host != "a-ne.documents.azure.com:443" {
		t.Errorf("region = %+v", r)
	}
	a, ok = ParseAccount([]byte(`{"writableLocations":[{"name":"W","databaseAccountEndpoint":"https://h:1/"}]}`))
	if !ok || len(a.Readable) != 1 || a.Readable[0].Host != "h:1" {
		t.Errorf("no readable regions: Readable = %+v", a.Readable)
	}
	for _, body := range []string{``, `null`, `{}`, `[]`, `{"writableLocations":[{"name":"W","databaseAccountEndpoint":"relative"}]}`} {
		if _, ok := ParseAccount([]byte(body)); ok {
			t.Errorf("ParseAccount(%q) ok", body)
		}
	}
}

func TestServiceMessage(t *testing.T) {
	tests := map[string]string{
		`{"code":"NotFound","message":"Entity with the specified id does not exist in the system.\r\nActivityId: x"}`: "Entity with the specified id does not exist in the system.",
		`{"code":"TooManyRequests","message":"Message: {\"Errors\":[\"Request rate is large.\"]}\r\nActivityId: x"}`:  "Request rate is large.",
		`{"message":"Message: {\"Errors\":[]}"}`: `Message: {"Errors":[]}`,
		`not json`:                               "",
		`{"message":""}`:                         "",
	}
	for body, want := range tests {
		if got := ServiceMessage([]byte(body)); got != want {
			t.Errorf("ServiceMessage(%q) = %q, want %q", body, got, want)
		}
	}
}
