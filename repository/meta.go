package repository

import (
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
)

// Meta is an optional helper to embed in item types: it receives the system properties the service
// stores with every item. With it, an item read or written carries its ETag (for IfMatch) and
// last-modified time. It has no methods that would change how T is encoded.
//
//	type Order struct {
//		repository.Meta
//		ID         string `json:"id"`
//		CustomerID string `json:"customerId"`
//	}
type Meta struct {
	// ETag is the item's _etag: it changes on every write.
	ETag azcore.ETag `json:"_etag,omitempty"`
	// TS is the item's _ts: the last write, in Unix seconds.
	TS int64 `json:"_ts,omitempty"`
}

// Modified returns TS as a time, the zero time if TS is 0.
func (m Meta) Modified() time.Time {
	if m.TS == 0 {
		return time.Time{}
	}
	return time.Unix(m.TS, 0).UTC()
}
