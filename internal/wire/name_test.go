package wire

import (
	"strings"
	"testing"
)

// TestNameProblem: database and container ids are limited to 255 characters (not bytes), none of
// / \ ? #, no trailing space; the reason counts characters and never quotes the id.
func TestNameProblem(t *testing.T) {
	for id, want := range map[string]string{
		"orders":                       "",
		strings.Repeat("a", 255):       "",
		strings.Repeat("€", 255):       "", // 765 bytes
		"ümlaut and space inside":      "",
		" leading space":               "",
		"":                             "is empty",
		strings.Repeat("a", 256):       "is 256 characters; at most 255",
		strings.Repeat("é", 256):       "is 256 characters; at most 255",
		"secret/x":                     `contains one of / \ ? #`,
		`secret\x`:                     `contains one of / \ ? #`,
		"secret?x":                     `contains one of / \ ? #`,
		"secret#x":                     `contains one of / \ ? #`,
		"secret ":                      "ends with a space",
		"secret\xff":                   "is not valid UTF-8",
		strings.Repeat("a", 1023):      "is 1023 characters; at most 255",
		strings.Repeat("a", 300):       "is 300 characters; at most 255",
		"a" + strings.Repeat("é", 254): "",
	} {
		if got := NameProblem(id); got != want {
			t.Errorf("NameProblem(%.20q…) = %q, want %q", id, got, want)
		}
		if got := NameProblem(id); id != "" && strings.Contains(got, id) {
			t.Errorf("the reason quotes the id: %q", got)
		}
	}
}
