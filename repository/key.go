package repository

import (
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
)

// PartitionKey is the partition key the repository's methods take: a partitionkey.Key or an
// azcosmos.PartitionKey. A partitionkey.Key is built with partitionkey.Of or a partitionkey
// builder; an azcosmos.PartitionKey is taken as the SDK builds it, so existing call sites keep
// working. The repository checks a partitionkey.Key before anything is sent: its number of
// components against Options.PartitionKeyPaths (exactly that many for point operations, at most
// that many for a query prefix) and the length of each string. An azcosmos.PartitionKey keeps its
// components unexported; the repository reads them by reflection (the one []interface{} field of
// azcosmos v1.5.0's PartitionKey, its string, float64, bool and nil values; no unsafe) and checks
// them the same way. cosmoskit.New reports a changed layout when the client is built (a warning
// and a metric, docs/versioning.md); with such a layout an SDK key that cannot be read is sent as
// given and the service checks it (a wrong key
// is 400, cosmoserr.ErrBadRequest; a key that differs from the item's own properties is 400 with
// sub-status 1001, which also matches cosmoserr.ErrInvalidPartitionKey), except that a write with
// PartitionKeyPaths still compares it with the SDK key built from the item's own values.
//
// Only partitionkey.Key and azcosmos.PartitionKey implement it usefully; another implementation is refused with
// cosmoserr.ErrInvalidPartitionKey.
type PartitionKey interface {
	AppendString(value string) azcosmos.PartitionKey
	AppendNumber(value float64) azcosmos.PartitionKey
	AppendBool(value bool) azcosmos.PartitionKey
	AppendNull() azcosmos.PartitionKey
}

// resolve returns the SDK form of pk and, when pk is a partitionkey.Key, the Key itself (typed true).
func resolve(pk PartitionKey) (sdk azcosmos.PartitionKey, k partitionkey.Key, typed bool, err error) {
	switch x := pk.(type) {
	case partitionkey.Key:
		return x.SDK(), x, true, x.Err()
	case *partitionkey.Key:
		if x == nil {
			return sdk, k, false, invalid(cosmoserr.ErrInvalidPartitionKey, "partitionKey", "has no value")
		}
		return x.SDK(), *x, true, x.Err()
	case azcosmos.PartitionKey:
		return x, k, false, nil
	case *azcosmos.PartitionKey:
		if x == nil {
			return sdk, k, false, invalid(cosmoserr.ErrInvalidPartitionKey, "partitionKey", "has no value")
		}
		return *x, k, false, nil
	case nil:
		return sdk, k, false, invalid(cosmoserr.ErrInvalidPartitionKey, "partitionKey", "has no value")
	default:
		return sdk, k, false, invalid(cosmoserr.ErrInvalidPartitionKey, "partitionKey", fmt.Sprintf("is a %T: pass a partitionkey.Key or an azcosmos.PartitionKey", pk))
	}
}
