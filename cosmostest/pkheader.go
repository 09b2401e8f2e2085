package cosmostest

import (
	"encoding/json"
	"strconv"
	"strings"
)

// parsePartitionKeyHeader parses x-ms-documentdb-partitionkey: a JSON array with one element per
// component (string, number, bool, null; {} is an undefined component). The SDK writes strings
// with strconv.QuoteToASCII, which is not always JSON (\U0001f600, \a, \x00), so when JSON
// decoding fails each element is tokenised and strings are decoded with strconv.Unquote.
// Errors are 400 with a message naming the header.
func parsePartitionKeyHeader(h string) ([]any, error) {
	h = strings.TrimSpace(h)
	var vals []any
	if err := json.Unmarshal([]byte(h), &vals); err == nil {
		for i, v := range vals {
			switch x := v.(type) {
			case map[string]any:
				if len(x) != 0 {
					return nil, pkHeaderError(h)
				}
				vals[i] = undefinedValue
			case []any:
				return nil, pkHeaderError(h)
			}
		}
		if vals == nil {
			return nil, pkHeaderError(h)
		}
		return vals, nil
	}
	return parsePKTolerant(h)
}

func pkHeaderError(h string) error {
	if len(h) > 100 {
		h = h[:100] + "..."
	}
	return badRequest("Partition key provided either doesn't correspond to definition in the collection or doesn't match partition key field values specified in the document. The x-ms-documentdb-partitionkey header %q is not a valid partition key.", h)
}

func parsePKTolerant(h string) ([]any, error) {
	s := h
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, pkHeaderError(h)
	}
	s = strings.TrimSpace(s[1 : len(s)-1])
	vals := []any{}
	if s == "" {
		return vals, nil
	}
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return nil, pkHeaderError(h)
		}
		var v any
		var rest string
		switch {
		case s[0] == '"':
			end := -1
			for i := 1; i < len(s); i++ {
				if s[i] == '\\' {
					i++
					continue
				}
				if s[i] == '"' {
					end = i
					break
				}
			}
			if end < 0 {
				return nil, pkHeaderError(h)
			}
			u, err := strconv.Unquote(s[:end+1])
			if err != nil {
				// JSON-only escapes such as \/ are not Go escapes; try JSON on the element.
				var js string
				if jerr := json.Unmarshal([]byte(s[:end+1]), &js); jerr != nil {
					return nil, pkHeaderError(h)
				}
				u = js
			}
			v, rest = u, s[end+1:]
		case strings.HasPrefix(s, "{}"):
			v, rest = undefinedValue, s[2:]
		default:
			i := strings.IndexByte(s, ',')
			tok := s
			if i >= 0 {
				tok, rest = s[:i], s[i:]
			}
			tok = strings.TrimSpace(tok)
			switch tok {
			case "true":
				v = true
			case "false":
				v = false
			case "null":
				v = nil
			default:
				f, err := strconv.ParseFloat(tok, 64)
				if err != nil {
					return nil, pkHeaderError(h)
				}
				v = f
			}
		}
		vals = append(vals, v)
		rest = strings.TrimLeft(rest, " \t")
		if rest == "" {
			return vals, nil
		}
		if rest[0] != ',' {
			return nil, pkHeaderError(h)
		}
		s = rest[1:]
	}
}

// feedPartitionKey reads the partition key (or hierarchical prefix) a feed request (change feed,
// document feed) is scoped to: nil without the header; 400 for a malformed one or one with more
// values than the container has levels.
func feedPartitionKey(rq *request, c *container) ([]any, error) {
	h := rq.hdr(hdrPK)
	if h == "" {
		return nil, nil
	}
	v, err := parsePartitionKeyHeader(h)
	if err != nil {
		return nil, err
	}
	if len(v) == 0 || len(v) > len(c.pk.Paths) {
		return nil, badRequest("Partition key provided either doesn't correspond to definition in the collection or doesn't match partition key field values specified in the document.")
	}
	return v, nil
}
