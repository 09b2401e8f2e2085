package repository

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
)

// TestSDKKeyLayout fails if an azcosmos upgrade changes how PartitionKey holds its components
// (sdkKey would then send SDK keys unchecked).
func TestSDKKeyLayout(t *testing.T) {
	for _, c := range []struct {
		sdk  azcosmos.PartitionKey
		want partitionkey.Key
	}{
		{azcosmos.NewPartitionKeyString("a"), partitionkey.Of("a")},
		{azcosmos.NewPartitionKeyNumber(2.5).AppendBool(true).AppendNull(), partitionkey.Of(2.5, true, nil)},
		{azcosmos.NullPartitionKey, partitionkey.Of(nil)},
		{azcosmos.NewPartitionKey(), partitionkey.Of()},
	} {
		got, ok := sdkKey(c.sdk)
		if !ok || !got.Equal(c.want) {
			t.Errorf("sdkKey(%v) = %v, %v; want %v", c.sdk, got, ok, c.want)
		}
	}
}
