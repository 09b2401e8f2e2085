package cosmoserr

import "github.com/cosmoskit/cosmoskit-go/internal/wire"

// Operation names: the values of Error.Operation, as the azcosmos SDK names its spans where it has
// one. Names the SDK does not have (read_change_feed, read_account, the offer operations) follow
// the same verb_resource pattern.
const (
	OpReadAccount            = wire.OpReadAccount
	OpCreateDatabase         = wire.OpCreateDatabase
	OpQueryDatabases         = wire.OpQueryDatabases
	OpReadDatabase           = wire.OpReadDatabase
	OpDeleteDatabase         = wire.OpDeleteDatabase
	OpCreateContainer        = wire.OpCreateContainer
	OpQueryContainers        = wire.OpQueryContainers
	OpReadContainer          = wire.OpReadContainer
	OpReplaceContainer       = wire.OpReplaceContainer
	OpDeleteContainer        = wire.OpDeleteContainer
	OpReadPartitionKeyRanges = wire.OpReadPartitionKeyRanges
	OpCreateItem             = wire.OpCreateItem
	OpUpsertItem             = wire.OpUpsertItem
	OpReadItem               = wire.OpReadItem
	OpReplaceItem            = wire.OpReplaceItem
	OpPatchItem              = wire.OpPatchItem
	OpDeleteItem             = wire.OpDeleteItem
	OpQueryItems             = wire.OpQueryItems
	OpQueryPlan              = wire.OpQueryPlan
	OpExecuteBatch           = wire.OpExecuteBatch
	OpReadChangeFeed         = wire.OpReadChangeFeed
	OpReadAllItems           = wire.OpReadAllItems
	OpQueryOffers            = wire.OpQueryOffers
	OpReadThroughput         = wire.OpReadThroughput
	OpReplaceThroughput      = wire.OpReplaceThroughput
	OpReadConflicts          = wire.OpReadConflicts
	OpReadConflict           = wire.OpReadConflict
	OpDeleteConflict         = wire.OpDeleteConflict
	OpOther                  = wire.OpOther
)
