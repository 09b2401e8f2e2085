package cosmostest

// conflictRecord is a losing write of a multi-write conflict, for the container's conflicts feed.
type conflictRecord struct {
	op    string // the losing write's operation: "create", "replace" or "delete"
	rid   string // the item's _rid
	key   string // itemKey(pk, id)
	pk    []any
	id    string
	loser *item // the losing version; nil when the loser is a delete
	lsn   int64 // the LSN at which the conflict was detected (conflict_lsn)
}

func (srv *server) recordConflict(c *container, rec conflictRecord) {}
