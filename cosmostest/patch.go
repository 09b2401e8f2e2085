package cosmostest

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
)

// maxPatchOps is the service's limit on operations per patch request.
const maxPatchOps = 10

type patchOp struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	From  string          `json:"from"`
	Value json.RawMessage `json:"value"`
}

type patchBody struct {
	Condition  string    `json:"condition"`
	Operations []patchOp `json:"operations"`
}

// parsePatch decodes and validates a patch document against container c (rest_protocol §5).
func parsePatch(body []byte, c *container) (*patchBody, error) {
	var pb patchBody
	if err := json.Unmarshal(body, &pb); err != nil {
		return nil, badRequest("The patch request body is invalid: %v", err)
	}
	if len(pb.Operations) == 0 {
		return nil, badRequest("Patch request must contain at least one operation.")
	}
	if len(pb.Operations) > maxPatchOps {
		return nil, badRequest("Patch request has more than %d operations; the number of patch operations can't exceed %d.", maxPatchOps, maxPatchOps)
	}
	for i, op := range pb.Operations {
		switch op.Op {
		case "add", "set", "replace", "remove", "incr", "move":
		default:
			return nil, badRequest("Invalid patch operation %q at index %d.", op.Op, i)
		}
		paths := []string{op.Path}
		if op.Op == "move" {
			if op.From == "" {
				return nil, badRequest("Patch operation 'move' at index %d requires 'from'.", i)
			}
			paths = append(paths, op.From)
		}
		for _, p := range paths {
			if _, err := parsePointer(p); err != nil {
				return nil, err
			}
			if err := c.patchable(p); err != nil {
				return nil, err
			}
		}
		if op.Op == "incr" {
			var f *float64
			if err := json.Unmarshal(op.Value, &f); err != nil || f == nil {
				return nil, badRequest("Patch operation 'incr' at index %d requires a numeric value.", i)
			}
		}
	}
	return &pb, nil
}

// patchable rejects paths that touch id, the partition key or system properties.
func (c *container) patchable(p string) error {
	if p == "/id" || strings.HasPrefix(p, "/id/") {
		return badRequest("Patch of the 'id' property is not allowed.")
	}
	for _, sys := range []string{"/_rid", "/_self", "/_etag", "/_ts", "/_attachments"} {
		if p == sys || strings.HasPrefix(p, sys+"/") {
			return badRequest("Patch of the system property '%s' is not allowed.", sys[1:])
		}
	}
	for _, pkp := range c.pk.Paths {
		if p == pkp || strings.HasPrefix(pkp, p+"/") || strings.HasPrefix(p, pkp+"/") {
			return badRequest("Patch of the partition key path '%s' is not allowed.", pkp)
		}
	}
	return nil
}

// parsePointer splits a JSON pointer ("/a/b~1c/0") into unescaped tokens.
func parsePointer(p string) ([]string, error) {
	if p == "" || p[0] != '/' {
		return nil, badRequest("The patch path %q is invalid: it must be a JSON pointer starting with '/'.", p)
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		if t == "" {
			return nil, badRequest("The patch path %q is invalid: it has an empty segment (the document root cannot be patched).", p)
		}
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return toks, nil
}

func (srv *server) patchItem(rq *request, c *container) error {
	pk, err := c.pointKey(rq)
	if err != nil {
		return err
	}
	pb, err := parsePatch(rq.body, c)
	if err != nil {
		return err
	}
	r := c.rangeFor(pk)
	rq.PKRangeID = r.id
	rq.session = r.sessionToken()
	if err := srv.admit(rq, c, r); err != nil {
		return err
	}
	key := itemKey(pk, rq.ID)
	old := srv.lookup(c, r, key)
	if old == nil {
		rq.charge = ruFailed
		return notFoundItem()
	}
	if im := rq.hdr("If-Match"); im != "" && im != old.etag {
		rq.charge = ruFailed
		return preconditionFailed()
	}
	if pb.Condition != "" {
		ok, err := engine.match(pb.Condition, old.doc)
		if err != nil {
			return err
		}
		if !ok {
			rq.charge = ruFailed
			return preconditionFailed()
		}
	}
	doc, err := patchedDoc(old, pb)
	if err != nil {
		return err
	}
	if tooLarge(doc) {
		return newError(http.StatusRequestEntityTooLarge, subNone, "Request size is too large.")
	}
	if err := validateTTL(c, doc); err != nil {
		return err
	}
	if err := srv.checkUnique(c, r, pk, rq.ID, doc); err != nil {
		return err
	}
	it := srv.put(c, r, pk, rq.ID, doc, patchedBytes(old, doc, pb), old)
	rq.charge = ruPatch(c, it, len(pb.Operations))
	srv.replyItem(rq, r, it, http.StatusOK)
	return nil
}

// patchedDoc applies pb's operations to a copy of old's document.
func patchedDoc(old *item, pb *patchBody) (map[string]any, error) {
	var doc map[string]any
	if err := json.Unmarshal(old.body(), &doc); err != nil {
		return nil, err
	}
	for i, op := range pb.Operations {
		if err := applyPatchOp(doc, op); err != nil {
			return nil, badRequest("Patch operation %d (%s %s) failed: %s", i, op.Op, op.Path, err.Error())
		}
	}
	return doc, nil
}

// patchedBytes encodes a patched document keeping old's properties where they were and adding
// new ones after them in the order the operations added them, as the service does; the system
// properties are left for put to append.
func patchedBytes(old *item, doc map[string]any, pb *patchBody) []byte {
	user := make(map[string]any, len(doc))
	for k, v := range doc {
		user[k] = v
	}
	for _, k := range systemProperties {
		delete(user, k)
	}
	h := &orderHints{added: map[string][]string{}, values: map[string][]byte{}}
	for _, op := range pb.Operations {
		switch op.Op {
		case "add", "set", "replace", "incr", "move":
		default:
			continue
		}
		i := strings.LastIndexByte(op.Path, '/')
		if i < 0 {
			continue
		}
		parent := op.Path[:i]
		name := strings.ReplaceAll(strings.ReplaceAll(op.Path[i+1:], "~1", "/"), "~0", "~")
		if !slices.Contains(h.added[parent], name) {
			h.added[parent] = append(h.added[parent], name)
		}
		if op.Op != "incr" && op.Op != "move" && len(op.Value) > 0 {
			h.values[op.Path] = op.Value
		} else {
			delete(h.values, op.Path)
		}
	}
	return appendOrdered(nil, old.raw, user, "", h)
}

type patchError string

func (e patchError) Error() string { return string(e) }

// applyPatchOp applies one operation to doc in place.
func applyPatchOp(doc map[string]any, op patchOp) error {
	var value any
	if len(op.Value) > 0 {
		if err := json.Unmarshal(op.Value, &value); err != nil {
			return patchError("the value is not valid JSON")
		}
	}
	toks, _ := parsePointer(op.Path)
	if op.Op == "move" {
		from, _ := parsePointer(op.From)
		if op.Path == op.From {
			return nil
		}
		if strings.HasPrefix(op.Path, op.From+"/") {
			return patchError("'path' cannot be a child of 'from'")
		}
		v, err := removeAt(doc, from)
		if err != nil {
			return err
		}
		return setAt(doc, toks, v, "add")
	}
	switch op.Op {
	case "remove":
		_, err := removeAt(doc, toks)
		return err
	case "incr":
		cur, exists := getAt(doc, toks)
		delta, ok := value.(float64)
		if !ok {
			return patchError("incr needs a numeric value")
		}
		if !exists {
			return setAt(doc, toks, delta, "add")
		}
		n, ok := cur.(float64)
		if !ok {
			return patchError("the target of incr is not a number")
		}
		return setAt(doc, toks, n+delta, "replace")
	default:
		return setAt(doc, toks, value, op.Op)
	}
}

// parent walks to the container holding the last token.
func parent(doc map[string]any, toks []string) (any, error) {
	var cur any = doc
	for _, t := range toks[:len(toks)-1] {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[t]
			if !ok {
				return nil, patchError("the parent path does not exist")
			}
			cur = v
		case []any:
			i, ok := arrayIndex(t)
			if !ok || i >= len(c) {
				return nil, patchError("the parent path does not exist")
			}
			cur = c[i]
		default:
			return nil, patchError("the parent path does not exist")
		}
	}
	return cur, nil
}

func getAt(doc map[string]any, toks []string) (any, bool) {
	p, err := parent(doc, toks)
	if err != nil {
		return nil, false
	}
	last := toks[len(toks)-1]
	switch c := p.(type) {
	case map[string]any:
		v, ok := c[last]
		return v, ok
	case []any:
		i, ok := arrayIndex(last)
		if !ok || i >= len(c) {
			return nil, false
		}
		return c[i], true
	}
	return nil, false
}

// setAt writes v at toks; mode is add, set or replace.
func setAt(doc map[string]any, toks []string, v any, mode string) error {
	p, err := parent(doc, toks)
	if err != nil {
		return err
	}
	last := toks[len(toks)-1]
	switch c := p.(type) {
	case map[string]any:
		if _, ok := c[last]; !ok && mode == "replace" {
			return patchError("the target path does not exist")
		}
		c[last] = v
		return nil
	case []any:
		i := len(c)
		if last != "-" {
			n, ok := arrayIndex(last)
			if !ok || n > len(c) {
				return patchError("the array index is out of range")
			}
			i = n
		}
		var out []any
		switch {
		case mode == "add" || i == len(c):
			if mode == "replace" {
				return patchError("the target path does not exist")
			}
			out = append(append(append([]any{}, c[:i]...), v), c[i:]...)
		default: // set, replace at an existing index
			out = append([]any{}, c...)
			out[i] = v
		}
		return replaceContainer(doc, toks[:len(toks)-1], out)
	}
	return patchError("the parent is not an object or array")
}

// arrayIndex parses an array index token as JSON Pointer (RFC 6901) defines it: decimal digits
// without a sign or a leading zero ("0" itself excepted); anything else is not an index.
func arrayIndex(t string) (int, bool) {
	if t == "" || len(t) > 9 || (len(t) > 1 && t[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return 0, false
		}
		n = n*10 + int(t[i]-'0')
	}
	return n, true
}

// replaceContainer stores a new slice at the location of toks (slices cannot grow in place).
func replaceContainer(doc map[string]any, toks []string, v []any) error {
	if len(toks) == 0 {
		return patchError("the document root is not an array")
	}
	return setAt(doc, toks, v, "set")
}

func removeAt(doc map[string]any, toks []string) (any, error) {
	p, err := parent(doc, toks)
	if err != nil {
		return nil, err
	}
	last := toks[len(toks)-1]
	switch c := p.(type) {
	case map[string]any:
		v, ok := c[last]
		if !ok {
			return nil, patchError("the target path does not exist")
		}
		delete(c, last)
		return v, nil
	case []any:
		i, ok := arrayIndex(last)
		if !ok || i >= len(c) {
			return nil, patchError("the target path does not exist")
		}
		v := c[i]
		out := append(append([]any{}, c[:i]...), c[i+1:]...)
		return v, replaceContainer(doc, toks[:len(toks)-1], out)
	}
	return nil, patchError("the target path does not exist")
}
