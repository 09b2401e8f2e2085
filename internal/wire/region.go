package wire

import (
	"strings"
	"unicode"
)

// CanonicalRegion returns a region name the way azcosmos compares them (region_id.go): every
// Unicode space removed, lower case. "West US 2", "westus2" and " WEST  us2 " are the same region.
func CanonicalRegion(name string) string {
	var b strings.Builder
	b.Grow(len(name))
	for _, r := range name {
		if !unicode.IsSpace(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}
