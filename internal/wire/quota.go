package wire

import (
	"strconv"
	"strings"
)

// ResourceValues reads an x-ms-resource-usage or x-ms-resource-quota header,
// "functions=0;storedProcedures=0;triggers=0;documentSize=1;documentsSize=884;documentsCount=2000;collectionSize=1408;",
// into a map from name to value (sizes in KB, documentSize in MB). Segments without "=" or whose
// value is not an integer are left out; an empty header is an empty map.
func ResourceValues(h string) map[string]int64 {
	out := map[string]int64{}
	for part := range strings.SplitSeq(h, ";") {
		name, value, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || name == "" {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64); err == nil {
			out[name] = n
		}
	}
	return out
}
