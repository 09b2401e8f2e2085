package partitionkey_test

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
)

func ExampleSynthetic() {
	s := partitionkey.Synthetic{Bucket: partitionkey.Month}
	key, _ := s.At(time.Date(2026, 12, 24, 10, 0, 0, 0, time.UTC), "contoso")
	fmt.Println(key)
	_, err := s.At(time.Now(), "a|b")
	fmt.Println(err)
	// Output:
	// contoso|2026-12
	// cosmoskit: invalid partition key: fields[0]: contains the separator "|"
}

func ExampleSharded() {
	s := partitionkey.Sharded{Count: 4}
	v, _ := s.Value("US", "order-42")
	all, _ := s.Values("US")
	fmt.Println(v, all)
	// Output:
	// US-0 [US-0 US-1 US-2 US-3]
}

func ExampleDefinition_Key() {
	def, _ := partitionkey.DefinitionOf(azcosmos.PartitionKeyDefinition{
		Paths: []string{"/tenantId", "/userId"}, Kind: azcosmos.PartitionKeyKindMultiHash, Version: 2})
	_, err := def.Key("contoso", "user-1")
	fmt.Println(err)
	_, err = def.Key("contoso")
	fmt.Println(err)
	_, err = def.Key("contoso", strings.Repeat("x", 2049))
	fmt.Println(errors.Is(err, cosmoserr.ErrInvalidPartitionKey), err)
	_, err = def.Prefix("contoso")
	fmt.Println(err)
	// Output:
	// <nil>
	// cosmoskit: invalid partition key: partitionKey: has 1 value, the container has 2 levels
	// true cosmoskit: invalid partition key: partitionKey[1]: is 2049 bytes, the limit is 2048
	// <nil>
}
