package repository

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// TestSDKKeyLayout fails if an azcosmos upgrade changes how PartitionKey holds its components
// (sdkKey would then send SDK keys unchecked).
func TestSDKKeyLayout(t *testing.T) {
	for _, c := range []struct {
		sdk  azcosmos.PartitionKey
		want Key
	}{
		{azcosmos.NewPartitionKeyString("a"), KeyOf("a")},
		{azcosmos.NewPartitionKeyNumber(2.5).AppendBool(true).AppendNull(), KeyOf(2.5, true, nil)},
		{azcosmos.NullPartitionKey, KeyOf(nil)},
		{azcosmos.NewPartitionKey(), KeyOf()},
	} {
		got, ok := sdkKey(c.sdk)
		if !ok || !got.equal(c.want) {
			t.Errorf("sdkKey(%v) = %v, %v; want %v", c.sdk, got, ok, c.want)
		}
	}
}
