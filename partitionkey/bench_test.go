package partitionkey_test

import (
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/partitionkey"
)

func BenchmarkDefinitionKey(b *testing.B) {
	def, err := partitionkey.DefinitionOf(tenantUser)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := def.Key("contoso", "user-0042"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHandWrittenKey is the baseline: the same key built with the SDK's constructors alone.
func BenchmarkHandWrittenKey(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = azcosmos.NewPartitionKeyString("contoso").AppendString("user-0042")
	}
}

func BenchmarkSyntheticAt(b *testing.B) {
	s := partitionkey.Synthetic{Bucket: partitionkey.Month}
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.At(at, "contoso", "eu-west"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkShardedValue(b *testing.B) {
	s := partitionkey.Sharded{Count: 8}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Value("US", "order-000123"); err != nil {
			b.Fatal(err)
		}
	}
}
