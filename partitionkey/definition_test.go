package partitionkey_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
)

var tenantUser = azcosmos.PartitionKeyDefinition{Paths: []string{"/tenantId", "/userId"}, Kind: azcosmos.PartitionKeyKindMultiHash, Version: 2}

func TestDefinitionKeyThroughClient(t *testing.T) {
	srv, c := newContainer(t, tenantUser)
	ctx := context.Background()
	def, err := partitionkey.ReadDefinition(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if def.Levels() != 2 || def.Kind() != azcosmos.PartitionKeyKindMultiHash || def.MaxBytes() != 2048 {
		t.Fatalf("definition: levels %d kind %s max %d", def.Levels(), def.Kind(), def.MaxBytes())
	}

	long := strings.Repeat("u", 2048) // the longest value the service takes
	pk, err := def.Key("contoso", long)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := json.Marshal(map[string]any{"id": "1", "tenantId": "contoso", "userId": long})
	if _, err := c.CreateItem(ctx, pk.SDK(), doc, nil); err != nil {
		t.Fatalf("create with a full key of 2,048 bytes: %v", err)
	}
	if _, err := c.ReadItem(ctx, pk.SDK(), "1", nil); err != nil {
		t.Fatalf("point read with the full key: %v", err)
	}

	prefix, err := def.Prefix("contoso")
	if err != nil {
		t.Fatal(err)
	}
	pager := c.NewQueryItemsPager("SELECT * FROM c", prefix.SDK(), nil)
	n := 0
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n += len(page.Items)
	}
	if n != 1 {
		t.Fatalf("prefix query found %d items, want 1", n)
	}

	// Refused before anything is sent.
	srv.ResetRequests()
	for _, tc := range []struct {
		name   string
		build  func() (partitionkey.Key, error)
		field  string
		reason string
	}{
		{"too few levels", func() (partitionkey.Key, error) { return def.Key("contoso") }, "partitionKey", "has 1 value, the container has 2 levels"},
		{"too many levels", func() (partitionkey.Key, error) { return def.Key("a", "b", "c") }, "partitionKey", "has 3 values"},
		{"prefix too long", func() (partitionkey.Key, error) { return def.Prefix("a", "b", "c") }, "partitionKey", "a prefix takes 1 to 2"},
		{"empty prefix", func() (partitionkey.Key, error) { return def.Prefix() }, "partitionKey", "a prefix takes 1 to 2"},
		{"value too long", func() (partitionkey.Key, error) { return def.Key("contoso", long+"x") }, "partitionKey[1]", "is 2049 bytes, the limit is 2048"},
		{"wrong type", func() (partitionkey.Key, error) { return def.Key("contoso", []string{"x"}) }, "partitionKey[1]", "is a []string"},
		{"not finite", func() (partitionkey.Key, error) { return def.Key("contoso", math.NaN()) }, "partitionKey[1]", "not a finite number"},
		{"unsafe integer", func() (partitionkey.Key, error) { return def.Key("contoso", int64(1)<<60) }, "partitionKey[1]", "beyond ±2^53"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.build()
			var ve *cosmoserr.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) || !errors.Is(err, cosmoserr.ErrValidation) {
				t.Fatalf("err = %v, want a ValidationError matching ErrInvalidPartitionKey", err)
			}
			if ve.Field != tc.field || !strings.Contains(ve.Reason, tc.reason) {
				t.Fatalf("field %q reason %q, want %q containing %q", ve.Field, ve.Reason, tc.field, tc.reason)
			}
		})
	}
	if n := srv.Requests(cosmostest.RequestFilter{}); n != 0 {
		t.Fatalf("%d requests sent for refused keys", n)
	}

	// What the builder refuses, the service refuses too: a 2,049-byte value sent by hand is 400.
	raw := azcosmos.NewPartitionKeyString("contoso").AppendString(long + "x")
	doc, _ = json.Marshal(map[string]any{"id": "2", "tenantId": "contoso", "userId": long + "x"})
	if _, err := c.CreateItem(ctx, raw, doc, nil); err == nil {
		t.Fatal("the service accepted a 2,049-byte key value")
	}
}

func TestDefinitionLegacyHash(t *testing.T) {
	def, err := partitionkey.DefinitionOf(azcosmos.PartitionKeyDefinition{Paths: []string{"/country"}})
	if err != nil {
		t.Fatal(err)
	}
	if def.MaxBytes() != 101 || def.Kind() != azcosmos.PartitionKeyKindHash {
		t.Fatalf("version 1 Hash: max %d kind %s", def.MaxBytes(), def.Kind())
	}
	if _, err := def.Key(strings.Repeat("x", 101)); err != nil {
		t.Fatal(err)
	}
	if _, err := def.Key(strings.Repeat("x", 102)); !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) {
		t.Fatalf("102 bytes on version 1: %v", err)
	}
	for _, bad := range []azcosmos.PartitionKeyDefinition{
		{},
		{Paths: []string{"/a", "/b"}, Kind: azcosmos.PartitionKeyKindHash},
		{Paths: []string{"/a", "/b", "/c", "/d"}, Kind: azcosmos.PartitionKeyKindMultiHash},
		{Paths: []string{"/a"}, Kind: "Range"},
	} {
		if _, err := partitionkey.DefinitionOf(bad); !errors.Is(err, cosmoserr.ErrValidation) {
			t.Errorf("DefinitionOf(%+v) = %v, want a ValidationError", bad, err)
		}
	}
	var zero partitionkey.Definition
	if _, err := zero.Key("x"); !errors.Is(err, cosmoserr.ErrValidation) {
		t.Fatalf("zero Definition: %v", err)
	}
}

func TestDefinitionValueTypes(t *testing.T) {
	def, err := partitionkey.DefinitionOf(azcosmos.PartitionKeyDefinition{Paths: []string{"/a", "/b", "/c"}, Kind: azcosmos.PartitionKeyKindMultiHash, Version: 2})
	if err != nil {
		t.Fatal(err)
	}
	got, err := def.Key(int32(7), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := azcosmos.NewPartitionKeyNumber(7).AppendBool(true).AppendNull()
	if !reflect.DeepEqual(got.SDK(), want) || !got.Equal(partitionkey.Of(7, true, nil)) {
		t.Fatalf("key %+v, want %+v", got, want)
	}
}

func TestReadDefinitionMissingContainerIsNotFound(t *testing.T) {
	_, c := newContainer(t, tenantUser)
	if _, err := c.Delete(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	_, err := partitionkey.ReadDefinition(context.Background(), c)
	var ce *cosmoserr.Error
	if !errors.Is(err, cosmoserr.ErrNotFound) || !errors.As(err, &ce) {
		t.Fatalf("missing container: %v, want a *cosmoserr.Error matching ErrNotFound", err)
	}
	if ce.Operation != cosmoserr.OpReadContainer || ce.StatusCode != 404 || ce.Container != "c" {
		t.Fatalf("error fields: operation %q status %d container %q", ce.Operation, ce.StatusCode, ce.Container)
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != 404 {
		t.Fatalf("%v does not unwrap to the SDK's 404 *azcore.ResponseError", err)
	}
}

// TestDefinitionRefusesIntegersThatWouldCollide: an integer beyond ±2^53 would become a float64
// and share its key with its neighbour (2^53+1 and 2^53 are the same JSON number): refused before
// anything is sent, and the error names the value's position, never the value.
func TestDefinitionRefusesIntegersThatWouldCollide(t *testing.T) {
	def, err := partitionkey.DefinitionOf(azcosmos.PartitionKeyDefinition{Kind: azcosmos.PartitionKeyKindMultiHash, Paths: []string{"/tenant", "/n"}, Version: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{int64(1<<53 + 1), uint64(1<<63 + 5), -int64(1<<53 + 1), float64(1 << 60)} {
		_, err := def.Key("t", v)
		var ve *cosmoserr.ValidationError
		if !errors.As(err, &ve) || !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) || ve.Field != "partitionKey[1]" {
			t.Errorf("Key(t, %T) = %v, want a ValidationError on partitionKey[1]", v, err)
			continue
		}
		if strings.Contains(err.Error(), "9007199254740993") || strings.Contains(err.Error(), "922337") {
			t.Errorf("the error echoes the value: %v", err)
		}
	}
	if _, err := def.Key("t", int64(1<<53)); err != nil {
		t.Errorf("2^53 itself is exact: %v", err)
	}
}
