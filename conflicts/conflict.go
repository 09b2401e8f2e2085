package conflicts

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
)

// Operation is the losing write's operation.
type Operation string

// Operations a conflict can record.
const (
	OperationCreate  Operation = "create"
	OperationReplace Operation = "replace"
	OperationDelete  Operation = "delete"
)

// Conflict is one entry of the conflicts feed, as the service returns it (.NET ConflictProperties,
// Java CosmosConflictProperties).
type Conflict struct {
	// ID is the conflict's id (not the item's): pass the Conflict to Delete.
	ID string
	// Operation is the losing write's operation.
	Operation Operation
	// ResourceType is the kind of resource in conflict: "document" for items.
	ResourceType string
	// ResourceID is the _rid of the item in conflict.
	ResourceID string
	// Content is the losing version of the item, with its system properties; nil when the loser
	// was a delete.
	Content json.RawMessage
	// LSN is the log sequence number at which the conflict was detected (conflict_lsn).
	LSN int64
	// Time is when the conflict was recorded (_ts, whole seconds).
	Time time.Time
	// ETag is the conflict's etag.
	ETag azcore.ETag
	// SelfLink is the conflict's _self link.
	SelfLink string
}

// wireConflict is a conflict as the service sends it.
type wireConflict struct {
	ID            string `json:"id"`
	OperationType string `json:"operationType"`
	ResourceType  string `json:"resourceType"`
	ResourceID    string `json:"resourceId"`
	Content       string `json:"content"`
	LSN           int64  `json:"conflict_lsn"`
	TS            int64  `json:"_ts"`
	ETag          string `json:"_etag"`
	Self          string `json:"_self"`
}

// conflict is the typed conflict; the operation is lower-cased, since the casing the service sends
// is not pinned down (Java upper-cases it before parsing).
func (w wireConflict) conflict() Conflict {
	c := Conflict{
		ID: w.ID, Operation: Operation(strings.ToLower(w.OperationType)), ResourceType: w.ResourceType, ResourceID: w.ResourceID,
		LSN: w.LSN, Time: time.Unix(w.TS, 0).UTC(), ETag: azcore.ETag(w.ETag), SelfLink: w.Self,
	}
	if w.Content != "" {
		c.Content = json.RawMessage(w.Content)
	}
	return c
}

// feedPage is one page of the conflicts feed.
type feedPage struct {
	Conflicts []wireConflict `json:"Conflicts"`
}
