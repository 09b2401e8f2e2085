package repository

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// encoded is a serialized item in a pooled buffer; release returns the buffer after the request.
type encoded struct {
	b   []byte
	buf *bytes.Buffer
	// etag is the item's own "_etag" property (the ETag it was read or written with, through
	// Meta), "" if it has none.
	etag azcore.ETag
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func (e encoded) release() {
	if e.buf != nil && e.buf.Cap() <= 4<<20 {
		e.buf.Reset()
		bufPool.Put(e.buf)
	}
}

// encodeFor serializes item with "type" and "schemaVersion" stamped and validates it: the
// document's "id" must be id, it must nest at most 128 levels, hold no integer beyond ±2^53 nor any
// other number that does not survive a float64 round trip, and
// be at most 2 MB; with Options.PartitionKeyPaths, its values there must make up pk. The item is
// marshalled once, into a pooled buffer; the stamp replaces its closing brace.
func (c *core) encodeFor(ctx context.Context, item any, id string, pk PartitionKey) (encoded, error) {
	e, large, err := c.encode(item, id, pk)
	if err == nil && large != nil {
		c.reportLarge(ctx, *large)
	}
	return e, err
}

// reportLarge calls Options.OnLargeItem with the context of the call that writes the item, or
// logs a warning.
func (c *core) reportLarge(ctx context.Context, li LargeItem) {
	if c.onLarge != nil {
		c.onLarge(ctx, li)
		return
	}
	c.log.WarnContext(ctx, "cosmoskit: large item; keep items well under 2 MB", "type", li.Type, "id", li.ID, "bytes", li.Size)
}

// encode is encodeFor without the large-item report: it returns the LargeItem to report (nil if
// the item is below the threshold), for a batch to report when it executes.
func (c *core) encode(item any, id string, pk PartitionKey) (encoded, *LargeItem, error) {
	buf := bufPool.Get().(*bytes.Buffer)
	e := encoded{buf: buf}
	enc := json.NewEncoder(buf)
	if err := enc.Encode(item); err != nil {
		e.release()
		return encoded{}, nil, invalid(cosmoserr.ErrValidation, "item", "cannot be encoded as JSON: "+err.Error())
	}
	b := bytes.TrimRight(buf.Bytes(), "\n")
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		e.release()
		return encoded{}, nil, invalid(cosmoserr.ErrValidation, "item", "must encode as a JSON object")
	}
	h, issue := scanHeader(b, true)
	if issue != nil {
		e.release()
		reason := "nests objects and arrays more than 128 levels deep"
		switch {
		case errors.Is(issue.kind, cosmoserr.ErrUnsafeNumber) && issue.decimal:
			reason = "number would not come back as written (Cosmos DB stores numbers as float64 and would round it); encode it as a string"
		case errors.Is(issue.kind, cosmoserr.ErrUnsafeNumber):
			reason = "integer beyond ±2^53 would lose precision; encode it as a string (json:\",string\")"
		}
		return encoded{}, nil, invalid(issue.kind, pointerAt(b, issue.at), reason)
	}
	if err := c.checkHeaderForWrite(h, id); err != nil {
		e.release()
		return encoded{}, nil, err
	}
	if h.etag != nil {
		if s, ok := jsonString(h.etag); ok {
			e.etag = azcore.ETag(s)
		}
	}
	if err := c.checkDocKey(b, pk); err != nil {
		e.release()
		return encoded{}, nil, err
	}
	// stamp: replace the closing brace, skipping properties the item already carries
	stamp := c.stamp
	switch {
	case h.typ != nil && h.hasVersion:
		stamp = []byte{'}'}
	case h.typ != nil:
		stamp = []byte(`,"schemaVersion":` + c.versionStr + `}`)
	case h.hasVersion:
		stamp = []byte(`,"type":` + string(c.typeJSON) + `}`)
	}
	n := len(b) - 1
	if n == 1 && stamp[0] == ',' { // "{}"
		stamp = stamp[1:]
	}
	buf.Truncate(n)
	buf.Write(stamp)
	e.b = buf.Bytes()
	if len(e.b) > MaxItemBytes {
		e.release()
		return encoded{}, nil, invalid(cosmoserr.ErrItemTooLarge, "item", fmt.Sprintf("%d bytes serialized, the limit is %d", len(e.b), MaxItemBytes))
	}
	if len(e.b) >= c.largeAt {
		return e, &LargeItem{Type: c.typeName, ID: id, Size: len(e.b)}, nil
	}
	return e, nil, nil
}

// checkHeaderForWrite checks the properties the repository owns in an encoded item.
func (c *core) checkHeaderForWrite(h header, id string) error {
	if h.id == nil {
		return invalid(cosmoserr.ErrInvalidID, "id", `the item has no "id" property`)
	}
	if !jsonStringEquals(h.id, id) {
		return invalid(cosmoserr.ErrInvalidID, "id", `the item's "id" property differs from the id its KeyFunc returns`)
	}
	if h.typ != nil && !bytes.Equal(h.typ, c.typeJSON) {
		return invalid(cosmoserr.ErrTypeMismatch, "type", "the item's \"type\" property is not "+string(c.typeJSON))
	}
	if h.hasVersion && (h.badVersion || h.version != c.version) {
		return invalid(cosmoserr.ErrUnknownSchemaVersion, "schemaVersion", "the item's \"schemaVersion\" property is not "+c.versionStr)
	}
	return nil
}

// jsonStringEquals reports whether the raw JSON value raw is the string s.
func jsonStringEquals(raw []byte, s string) bool {
	if len(raw) < 2 || raw[0] != '"' {
		return false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1:len(raw)-1]) == s
	}
	var u string
	if err := json.Unmarshal(raw, &u); err != nil {
		return false
	}
	return u == s
}

// decode checks a stored document's type and schema version and decodes it into a T, running
// the upgrades of an older version. It reports whether the document was upgraded.
func decode[T any](c *core, doc []byte) (T, bool, error) {
	var out T
	h, _ := scanHeader(doc, false)
	if err := c.checkHeaderForRead(h); err != nil {
		return out, false, err
	}
	v := c.docVersion(h)
	if v == c.version {
		if err := json.Unmarshal(doc, &out); err != nil {
			return out, false, c.docError(cosmoserr.ErrValidation, h, "cannot be decoded: "+err.Error())
		}
		return out, false, nil
	}
	up, err := c.upgrade(h, doc)
	if err != nil {
		return out, false, err
	}
	if err := json.Unmarshal(up, &out); err != nil {
		return out, false, c.docError(cosmoserr.ErrValidation, h, "upgraded document cannot be decoded: "+err.Error())
	}
	return out, true, nil
}

// ownType reports whether a stored document with header h is of the repository's type: its
// "type" is the repository's, or it has none and Options.ReadUntyped is set.
func (c *core) ownType(h header) bool {
	return bytes.Equal(h.typ, c.typeJSON) || (h.typ == nil && c.untyped)
}

// checkHeaderForRead rejects documents of another type and versions that cannot be read.
func (c *core) checkHeaderForRead(h header) error {
	if !c.ownType(h) {
		return c.docError(cosmoserr.ErrTypeMismatch, h, "the document's type differs")
	}
	switch v := c.docVersion(h); {
	case h.badVersion:
		return c.docError(cosmoserr.ErrUnknownSchemaVersion, h, "schemaVersion is not a non-negative integer")
	case v == 0:
		return c.docError(cosmoserr.ErrUnknownSchemaVersion, h, "the document has no schemaVersion (set Options.UnversionedAs)")
	case v > c.version:
		return c.docError(cosmoserr.ErrUnknownSchemaVersion, h, "the document is newer than this code")
	case v < c.version:
		for k := v; k < c.version; k++ {
			if c.upgrades[k] == nil {
				return c.docError(cosmoserr.ErrUnknownSchemaVersion, h, "no upgrade registered from version "+strconv.Itoa(k))
			}
		}
	}
	return nil
}

func (c *core) docVersion(h header) int {
	if !h.hasVersion {
		return c.unversion
	}
	return h.version
}

func (c *core) docError(kind error, h header, reason string) error {
	e := &DocumentError{Kind: kind, Type: c.typeName, Version: h.version, Current: c.version, Reason: reason}
	if h.id != nil {
		_ = json.Unmarshal(h.id, &e.ID)
	}
	if h.typ != nil {
		_ = json.Unmarshal(h.typ, &e.Found)
	}
	return e
}

// upgrade runs the registered upgrades over an older document and returns the current version's
// JSON.
func (c *core) upgrade(h header, doc []byte) ([]byte, error) {
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return nil, c.docError(cosmoserr.ErrValidation, h, "cannot be decoded: "+err.Error())
	}
	for v := c.docVersion(h); v < c.version; v++ {
		if err := c.upgrades[v](m); err != nil {
			return nil, c.docError(cosmoserr.ErrUnknownSchemaVersion, h, fmt.Sprintf("upgrade from version %d failed: %v", v, err))
		}
		m["schemaVersion"] = v + 1
	}
	m["type"] = c.typeName
	return json.Marshal(m)
}
