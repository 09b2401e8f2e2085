package partitionkey_test

import (
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/partitionkey"
)

// Built values are shared between goroutines: run with -race.
func TestSharedBuilders(t *testing.T) {
	def, err := partitionkey.DefinitionOf(tenantUser)
	if err != nil {
		t.Fatal(err)
	}
	syn := partitionkey.Synthetic{Bucket: partitionkey.Day}
	sh := partitionkey.Sharded{Count: 16}
	want := azcosmos.NewPartitionKeyString("t").AppendString("u")
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				pk, err := def.Key("t", "u")
				if err != nil || !reflect.DeepEqual(pk.SDK(), want) {
					t.Errorf("Key: %v %v", pk, err)
					return
				}
				p := def.Paths()
				p[0] = "/mutated" // a copy: the definition is unchanged
				if v, err := syn.At(time.Unix(int64(i), 0), "t"); err != nil || v != "t|1970-01-01" {
					t.Errorf("At: %q %v", v, err)
					return
				}
				if a, b := sh.Shard("id"), sh.Shard("id"); a != b {
					t.Errorf("Shard not stable: %d %d", a, b)
					return
				}
			}
		}()
	}
	wg.Wait()
	if def.Paths()[0] != "/tenantId" {
		t.Fatal("Paths returned the definition's own slice")
	}
}
