package bulk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
)

// Kind is what an operation does.
type Kind int

// Operation kinds.
const (
	Create  Kind = iota + 1 // create the document; 409 if its id exists in the logical partition
	Upsert                  // create or replace the document
	Replace                 // replace the document with ID; 404 if missing
	Delete                  // delete the document with ID
	Read                    // read the document with ID (Result.Body)
	Patch                   // apply Operation.Patch to the document with ID
)

var kindNames = [...]string{Create: wire.BatchCreate, Upsert: wire.BatchUpsert, Replace: wire.BatchReplace,
	Delete: wire.BatchDelete, Read: wire.BatchRead, Patch: wire.BatchPatch}

// opNames are the cosmoserr operation names of each kind, as the point operation would be named.
var opNames = [...]string{Create: cosmoserr.OpCreateItem, Upsert: cosmoserr.OpUpsertItem, Replace: cosmoserr.OpReplaceItem,
	Delete: cosmoserr.OpDeleteItem, Read: cosmoserr.OpReadItem, Patch: cosmoserr.OpPatchItem}

// String returns the kind as the service names it ("Upsert").
func (k Kind) String() string {
	if k < Create || k > Patch {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

func (k Kind) writesDocument() bool { return k == Create || k == Upsert || k == Replace }

// Operation is one item operation of a bulk job.
type Operation struct {
	// Kind is what the operation does. Required.
	Kind Kind
	// PartitionKey is the document's partition key. Required; it must match the document's values
	// at the container's partition key paths (Create, Upsert, Replace).
	PartitionKey partitionkey.Key
	// ID is the document id: required for Delete, Read and Patch; for Create, Upsert and Replace
	// it is read from Document when empty and must equal the document's id when set.
	ID string
	// Document is the document's JSON (an object with a string "id"), for Create, Upsert and
	// Replace; at most 2 MB.
	Document []byte
	// Patch is the patch to apply, for Patch: at least one and at most 10 operations.
	Patch *azcosmos.PatchOperations
	// IfMatch, when set, makes Replace, Upsert, Delete and Patch conditional on the document's
	// current ETag (412 otherwise).
	IfMatch azcore.ETag

	// err is a refusal made before the operation was built (by Upserts, Creates and Replaces for
	// an item its repository refuses): the operation's result, nothing is sent.
	err error
	// container is the container of the repository that built the operation ("" for any).
	container string
}

// Convenience constructors.

// UpsertOp returns an Upsert of doc under pk.
func UpsertOp(pk partitionkey.Key, doc []byte) Operation {
	return Operation{Kind: Upsert, PartitionKey: pk, Document: doc}
}

// CreateOp returns a Create of doc under pk.
func CreateOp(pk partitionkey.Key, doc []byte) Operation {
	return Operation{Kind: Create, PartitionKey: pk, Document: doc}
}

// DeleteOp returns a Delete of the document id under pk.
func DeleteOp(pk partitionkey.Key, id string) Operation {
	return Operation{Kind: Delete, PartitionKey: pk, ID: id}
}

// ReadOp returns a Read of the document id under pk.
func ReadOp(pk partitionkey.Key, id string) Operation {
	return Operation{Kind: Read, PartitionKey: pk, ID: id}
}

// PatchOp returns a Patch of the document id under pk.
func PatchOp(pk partitionkey.Key, id string, p *azcosmos.PatchOperations) Operation {
	return Operation{Kind: Patch, PartitionKey: pk, ID: id, Patch: p}
}

// maxPatchOperations is the service's limit on operations in one patch.
const maxPatchOperations = 10

// opOverhead is an upper bound of the JSON an operation adds around its body and key (field
// names, operation type, ETag quotes), used to refuse a document that cannot fit a request.
const opOverhead = 160

// prepared is a checked operation, encoded as it travels.
type prepared struct {
	enc []byte // the operation's JSON in a bulk request body
	id  string // the document id
	key string // the partition key's JSON: the logical partition
	epk string // the effective partition key: the physical partition
}

func invalid(kind error, field, reason string) error {
	return &cosmoserr.ValidationError{Kind: kind, Field: field, Reason: reason}
}

// prepare checks op against the container's partition key definition and encodes it, or returns
// a *cosmoserr.ValidationError naming the field. It never echoes a value.
func (c *containerInfo) prepare(op Operation) (prepared, error) {
	var p prepared
	if op.err != nil {
		return p, op.err
	}
	if op.Kind < Create || op.Kind > Patch {
		return p, invalid(cosmoserr.ErrValidation, "Operation.Kind", "is not one of Create, Upsert, Replace, Delete, Read, Patch")
	}
	k := op.PartitionKey
	switch {
	case k.Err() != nil:
		return p, k.Err()
	case k.Len() == 0:
		return p, invalid(cosmoserr.ErrInvalidPartitionKey, "Operation.PartitionKey", "is required")
	case k.Len() != len(c.paths):
		return p, invalid(cosmoserr.ErrInvalidPartitionKey, "Operation.PartitionKey",
			fmt.Sprintf("has %d values, the container's partition key has %d paths", k.Len(), len(c.paths)))
	}
	vals := k.Values()
	for i, v := range vals {
		if s, ok := v.(string); ok && len(s) > c.def.MaxBytes() {
			return p, invalid(cosmoserr.ErrInvalidPartitionKey, fmt.Sprintf("Operation.PartitionKey[%d]", i),
				fmt.Sprintf("is longer than %d bytes", c.def.MaxBytes()))
		}
	}
	keyJSON, err := json.Marshal(vals)
	if err != nil {
		return p, invalid(cosmoserr.ErrInvalidPartitionKey, "Operation.PartitionKey", "cannot be encoded as JSON")
	}
	p.key = string(keyJSON)
	p.epk = c.hash(vals)
	w := wire.BatchOperation{OperationType: op.Kind.String(), PartitionKey: p.key, IfMatch: string(op.IfMatch)}

	id := op.ID
	switch {
	case op.Kind.writesDocument():
		if len(op.Document) > wire.MaxRequestBodyBytes-opOverhead-len(keyJSON)-2*len(op.ID)-len(op.IfMatch) {
			return p, invalid(cosmoserr.ErrItemTooLarge, "Operation.Document", "is larger than the service's 2 MB limit")
		}
		docID, err := c.checkDocument(op.Document, vals)
		if err != nil {
			return p, err
		}
		if id != "" && id != docID {
			return p, invalid(cosmoserr.ErrInvalidID, "Operation.ID", "differs from the document's id")
		}
		id = docID
		w.ResourceBody = op.Document
	case op.Kind == Patch:
		body, err := checkPatch(op.Patch)
		if err != nil {
			return p, err
		}
		w.ResourceBody = body
	}
	if id == "" {
		return p, invalid(cosmoserr.ErrInvalidID, "Operation.ID", "is required")
	}
	if why := wire.IDProblem(id); why != "" {
		return p, invalid(cosmoserr.ErrInvalidID, "Operation.ID", why)
	}
	w.ID, p.id = id, id
	if p.enc, err = json.Marshal(w); err != nil {
		return p, invalid(cosmoserr.ErrValidation, "Operation.Document", "is not valid JSON")
	}
	if len(p.enc)+2 > wire.MaxRequestBodyBytes {
		return p, invalid(cosmoserr.ErrItemTooLarge, "Operation.Document", "is larger than the service's 2 MB limit")
	}
	return p, nil
}

// checkDocument checks that doc is a JSON object with a string id whose values at the partition
// key paths are vals, and returns the id.
func (c *containerInfo) checkDocument(doc []byte, vals []any) (string, error) {
	if len(doc) == 0 {
		return "", invalid(cosmoserr.ErrValidation, "Operation.Document", "is required")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil || top == nil {
		return "", invalid(cosmoserr.ErrValidation, "Operation.Document", "is not a JSON object")
	}
	var id string
	if raw, ok := top["id"]; !ok || json.Unmarshal(raw, &id) != nil || id == "" {
		return "", invalid(cosmoserr.ErrInvalidID, "Operation.Document", `has no string "id"`)
	}
	for i, path := range c.paths {
		got, ok := valueAt(top, path)
		if !ok || !sameValue(got, vals[i]) {
			return "", invalid(cosmoserr.ErrInvalidPartitionKey, "Operation.PartitionKey",
				fmt.Sprintf("does not match the document's value at %s", path))
		}
	}
	return id, nil
}

// valueAt returns the JSON value at a partition key path ("/a/b") of a document's top-level
// properties, false when it is missing.
func valueAt(top map[string]json.RawMessage, path string) (any, bool) {
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	raw, ok := top[unescapePath(parts[0])]
	for _, part := range parts[1:] {
		if !ok {
			return nil, false
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil || obj == nil {
			return nil, false
		}
		raw, ok = obj[unescapePath(part)]
	}
	if !ok {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	return v, true
}

// unescapePath undoes a path segment's JSON-pointer escapes (~1 is "/", ~0 is "~").
func unescapePath(s string) string {
	if !strings.Contains(s, "~") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// sameValue compares a decoded JSON value with a key value (string, float64, bool or nil).
func sameValue(doc, key any) bool {
	switch d := doc.(type) {
	case nil:
		return key == nil
	case string, float64, bool:
		return d == key
	}
	return false // an object or array is the undefined key, which a Key cannot hold
}

// checkPatch encodes a patch, refusing an empty one, more than 10 operations, or a path that is
// not a JSON pointer ("/a/b").
func checkPatch(p *azcosmos.PatchOperations) (json.RawMessage, error) {
	if p == nil {
		return nil, invalid(cosmoserr.ErrInvalidPatch, "Operation.Patch", "is required")
	}
	body, err := json.Marshal(p)
	if err != nil {
		return nil, invalid(cosmoserr.ErrInvalidPatch, "Operation.Patch", "cannot be encoded as JSON")
	}
	var doc struct {
		Operations []struct {
			Path string `json:"path"`
		} `json:"operations"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, invalid(cosmoserr.ErrInvalidPatch, "Operation.Patch", "is not a patch document")
	}
	switch n := len(doc.Operations); {
	case n == 0:
		return nil, invalid(cosmoserr.ErrInvalidPatch, "Operation.Patch", "has no operation")
	case n > maxPatchOperations:
		return nil, invalid(cosmoserr.ErrInvalidPatch, "Operation.Patch", fmt.Sprintf("has %d operations, the limit is %d", n, maxPatchOperations))
	}
	for i, o := range doc.Operations {
		if len(o.Path) < 2 || o.Path[0] != '/' {
			return nil, invalid(cosmoserr.ErrInvalidPatch, fmt.Sprintf("Operation.Patch[%d].path", i), `is not a path such as "/a/b"`)
		}
		if o.Path == "/id" || o.Path == "/_rid" || o.Path == "/_etag" || o.Path == "/_ts" {
			return nil, invalid(cosmoserr.ErrInvalidPatch, fmt.Sprintf("Operation.Patch[%d].path", i), "names a property the service does not let a patch change")
		}
	}
	return body, nil
}
