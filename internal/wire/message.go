package wire

import (
	"encoding/json"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// MaxMessageLen bounds the service message [ServiceMessage] returns, in bytes (plus an ellipsis).
const MaxMessageLen = 512

// ServiceMessage extracts the first line of the service's {"code","message"} error body, and the
// first entry of a `Message: {"Errors":[...]}` wrapper inside it: "" when body is not such a body.
// The result is one line of at most MaxMessageLen bytes plus "…".
func ServiceMessage(body []byte) string {
	if len(body) == 0 {
		return ""
	}
	var v struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &v) != nil || v.Message == "" {
		return ""
	}
	msg := v.Message
	if i := strings.IndexAny(msg, "\r\n"); i >= 0 {
		msg = msg[:i]
	}
	if rest, ok := strings.CutPrefix(msg, "Message: "); ok {
		var inner struct {
			Errors []string `json:"Errors"`
		}
		if json.Unmarshal([]byte(rest), &inner) == nil && len(inner.Errors) > 0 {
			msg = inner.Errors[0]
			if i := strings.IndexAny(msg, "\r\n"); i >= 0 {
				msg = msg[:i]
			}
		}
	}
	msg = strings.TrimSpace(msg)
	if len(msg) > MaxMessageLen {
		n := MaxMessageLen
		for n > 0 && !utf8.RuneStart(msg[n]) {
			n--
		}
		msg = msg[:n] + "…"
	}
	return msg
}

// ResponseMessage is ServiceMessage of a failed response's body, "" for a success; the body stays
// readable (azcore's runtime.Payload buffers it).
func ResponseMessage(resp *http.Response) string {
	if resp == nil || resp.Body == nil || resp.StatusCode < 400 {
		return ""
	}
	body, err := runtime.Payload(resp)
	if err != nil {
		return ""
	}
	return ServiceMessage(body)
}
