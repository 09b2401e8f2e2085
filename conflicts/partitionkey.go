package conflicts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// partitionKeyOf returns the partition key header value (a JSON array, one value per path) of the
// item in content.
func (r *Reader) partitionKeyOf(ctx context.Context, content []byte) (string, error) {
	paths, err := r.partitionKeyPaths(ctx)
	if err != nil {
		return "", err
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(content))
	dec.UseNumber() // a numeric key is sent back as written: no float64 rounding beyond 2^53
	if err := dec.Decode(&doc); err != nil {
		return "", &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "Conflict.Content", Reason: "is not a JSON object"}
	}
	return headerValue(paths, doc), nil
}

// headerValue is the partition key header for doc: its value at each path, {} (undefined) where it
// has none.
func headerValue(paths []string, doc map[string]any) string {
	vals := make([]any, len(paths))
	for i, p := range paths {
		vals[i] = map[string]any{}
		var cur any = doc
		found := true
		for _, seg := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
			m, ok := cur.(map[string]any)
			if !ok {
				found = false
				break
			}
			if cur, ok = m[seg]; !ok {
				found = false
				break
			}
		}
		if found {
			vals[i] = cur
		}
	}
	b, _ := json.Marshal(vals) // values decoded from JSON always encode
	return asciiJSON(string(b))
}

// asciiJSON escapes every non-ASCII character of JSON text as \uXXXX (surrogate pairs beyond the
// BMP), as azcosmos sends partition key headers (strconv.QuoteToASCII), so the header stays ASCII.
func asciiJSON(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 0x80:
			b.WriteRune(r)
		case r > 0xFFFF:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// partitionKeyPaths reads the container's partition key paths once.
func (r *Reader) partitionKeyPaths(ctx context.Context) ([]string, error) {
	r.pkMu.Lock()
	defer r.pkMu.Unlock()
	if r.pkPaths != nil {
		return r.pkPaths, nil
	}
	cc, err := r.client.Container(r.db, r.coll)
	if err != nil {
		return nil, err
	}
	resp, err := cc.Read(ctx, nil)
	if err != nil {
		return nil, cosmoserr.FromError(cosmoserr.OpReadContainer, err)
	}
	if resp.ContainerProperties == nil || len(resp.ContainerProperties.PartitionKeyDefinition.Paths) == 0 {
		return nil, fmt.Errorf("conflicts: container %s has no partition key definition", r.cc.Link())
	}
	r.pkPaths = slices.Clone(resp.ContainerProperties.PartitionKeyDefinition.Paths)
	return r.pkPaths, nil
}
