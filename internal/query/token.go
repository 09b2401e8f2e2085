package query

import (
	"encoding/base64"
	"encoding/json"
	"hash/fnv"
	"strconv"
)

const tokenVersion = 1

// contToken is the decoded continuation token. On the wire it is base64url JSON.
type contToken struct {
	Version int          `json:"v"`
	Hash    string       `json:"h"`
	Mode    execMode     `json:"m"`
	Key     string       `json:"k,omitempty"`
	Row     int          `json:"r"`
	Sort    []tokenValue `json:"s,omitempty"`
	Skip    int          `json:"o"`
	Take    int          `json:"t"`
	Index   int          `json:"i"`
}

// tokenValue is one ORDER BY value; Undefined marks undefined, which JSON cannot hold.
type tokenValue struct {
	Undefined bool            `json:"u,omitempty"`
	Value     json.RawMessage `json:"v,omitempty"`
}

func (t *contToken) setSortValues(vals []any) {
	t.Sort = make([]tokenValue, len(vals))
	for i, v := range vals {
		if isUndef(v) {
			t.Sort[i].Undefined = true
		} else {
			t.Sort[i].Value = canonicalJSON(nil, v)
		}
	}
}

func (t *contToken) sortValues() []any {
	out := make([]any, len(t.Sort))
	for i, tv := range t.Sort {
		if tv.Undefined {
			out[i] = undefined
			continue
		}
		var v any
		if err := json.Unmarshal(tv.Value, &v); err != nil {
			out[i] = undefined
			continue
		}
		out[i] = v
	}
	return out
}

func encodeToken(t *contToken, hash string) string {
	t.Version = tokenVersion
	t.Hash = hash
	b, err := json.Marshal(t)
	if err != nil {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func invalidToken() *Error {
	return badRequest("Invalid continuation token: the token is malformed or does not belong to this query.")
}

func decodeToken(s, hash string, mode execMode, nOrder int) (*contToken, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, invalidToken()
	}
	var t contToken
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, invalidToken()
	}
	if t.Version != tokenVersion || t.Hash != hash || t.Mode != mode || t.Row < -1 || t.Skip < 0 ||
		t.Take < -1 || t.Index < 0 {
		return nil, invalidToken()
	}
	if mode == modeOrdered {
		if len(t.Sort) != nOrder {
			return nil, invalidToken()
		}
		for _, tv := range t.Sort {
			if !tv.Undefined && !json.Valid(tv.Value) {
				return nil, invalidToken()
			}
		}
	}
	return &t, nil
}

// hash identifies the query text and parameter values a token belongs to.
func (q *Query) hash(params map[string]any) string {
	h := fnv.New64a()
	h.Write([]byte(q.text))
	h.Write([]byte{0})
	m := make(map[string]any, len(params))
	for k, v := range params {
		m[k] = v
	}
	h.Write(marshalValue(nil, m))
	return strconv.FormatUint(h.Sum64(), 36)
}
