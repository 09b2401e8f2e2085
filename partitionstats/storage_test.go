package partitionstats_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/partitionstats"
)

var byTenant = azcosmos.PartitionKeyDefinition{Paths: []string{"/tenantId"}, Kind: azcosmos.PartitionKeyKindHash, Version: 2}

// write creates n items of about size bytes in tenant's logical partition and returns the bytes
// the server stored (the documents as read back).
func write(t *testing.T, c *azcosmos.ContainerClient, tenant string, n, size int) int64 {
	t.Helper()
	ctx := context.Background()
	var stored int64
	for i := range n {
		doc, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("%s-%d", tenant, i), "tenantId": tenant, "pad": strings.Repeat("x", size)})
		pk := azcosmos.NewPartitionKeyString(tenant)
		if _, err := c.CreateItem(ctx, pk, doc, nil); err != nil {
			t.Fatal(err)
		}
		r, err := c.ReadItem(ctx, pk, fmt.Sprintf("%s-%d", tenant, i), nil)
		if err != nil {
			t.Fatal(err)
		}
		stored += int64(len(r.Value))
	}
	return stored
}

func TestReadStorageMatchesData(t *testing.T) {
	_, _, c := newContainer(t, byTenant)
	ctx := context.Background()
	big := write(t, c, "big", 40, 4000) // about 160 KB
	var small int64
	for i := range 12 {
		small += write(t, c, fmt.Sprintf("t%02d", i), 2, 500)
	}

	r, err := partitionstats.ReadStorage(ctx, c, partitionstats.StorageOptions{LogicalLimitKB: 180, PhysicalLimitKB: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Partitions) != 4 {
		t.Fatalf("%d physical partitions reported, want 4", len(r.Partitions))
	}
	var docs, kb int64
	for i, p := range r.Partitions {
		if p.ID != fmt.Sprint(i) {
			t.Fatalf("partition %d has id %q", i, p.ID)
		}
		docs += p.DocumentCount
		kb += p.SizeKB
	}
	if docs != 64 || r.DocumentCount != 64 {
		t.Fatalf("documents: %d in partitions, %d in usage; wrote 64", docs, r.DocumentCount)
	}
	// Sizes are whole KB rounded up per partition: within one KB per partition of what was stored.
	total := (big + small + 1023) / 1024
	if kb < total || kb > total+4 || r.UsageKB != total {
		t.Fatalf("size: partitions %d KB, usage %d KB; stored %d KB", kb, r.UsageKB, total)
	}
	if r.QuotaKB != 4*partitionstats.PhysicalPartitionLimitKB {
		t.Fatalf("quota %d KB", r.QuotaKB)
	}
	if len(r.Largest) == 0 || r.Largest[0].Key[0] != "big" || r.Largest[0].SizeKB != (big+1023)/1024 {
		t.Fatalf("largest logical partitions: %+v (big stored %d bytes)", r.Largest, big)
	}
	// big is at 160 KB of a 180 KB limit (89%): warned; its physical partition is below 80% of 1,000 KB.
	if len(r.Warnings) != 1 || !r.Warnings[0].Logical || r.Warnings[0].Key[0] != "big" || r.Warnings[0].PhysicalPartition != r.Largest[0].PhysicalPartition {
		t.Fatalf("warnings: %v", r.Warnings)
	}
	if s := r.Warnings[0].String(); !strings.HasPrefix(s, `logical partition ["big"] in physical partition `) || !strings.Contains(s, "of its 180 KB limit") {
		t.Fatalf("warning text: %s", s)
	}

	// A physical partition near its limit is warned about too; a balanced, small container is not.
	r, err = partitionstats.ReadStorage(ctx, c, partitionstats.StorageOptions{PhysicalLimitKB: 150})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) != 1 || r.Warnings[0].Logical || r.Warnings[0].PhysicalPartition != r.Largest[0].PhysicalPartition {
		t.Fatalf("physical warnings: %v", r.Warnings)
	}
	r, err = partitionstats.ReadStorage(ctx, c, partitionstats.StorageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) != 0 {
		t.Fatalf("warnings at the service's limits: %v", r.Warnings)
	}
	if o := (partitionstats.StorageOptions{}).Options(); o.LogicalLimitKB != 20<<20 || o.PhysicalLimitKB != 50<<20 || o.WarnFraction != 0.8 {
		t.Fatalf("defaults: %+v", o)
	}
}

func TestReadStorageHierarchical(t *testing.T) {
	_, _, c := newContainer(t, azcosmos.PartitionKeyDefinition{Paths: []string{"/tenantId", "/userId"}, Kind: azcosmos.PartitionKeyKindMultiHash, Version: 2})
	ctx := context.Background()
	doc, _ := json.Marshal(map[string]any{"id": "1", "tenantId": "contoso", "userId": "u1"})
	if _, err := c.CreateItem(ctx, azcosmos.NewPartitionKeyString("contoso").AppendString("u1"), doc, nil); err != nil {
		t.Fatal(err)
	}
	r, err := partitionstats.ReadStorage(ctx, c, partitionstats.StorageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Largest) != 1 || len(r.Largest[0].Key) != 2 || r.Largest[0].Key[0] != "contoso" || r.Largest[0].Key[1] != "u1" {
		t.Fatalf("largest: %+v", r.Largest)
	}
}

func TestReadStorageMissingContainerIsNotFound(t *testing.T) {
	_, _, c := newContainer(t, byTenant)
	if _, err := c.Delete(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	_, err := partitionstats.ReadStorage(context.Background(), c, partitionstats.StorageOptions{})
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

// TestReadStorageRefusesBadOptions: negative limits and a warning fraction outside [0, 1] are
// refused before any request, naming the option, instead of being replaced by defaults.
func TestReadStorageRefusesBadOptions(t *testing.T) {
	s, _, c := newContainer(t, byTenant)
	s.ResetRequests()
	for field, o := range map[string]partitionstats.StorageOptions{
		"StorageOptions.LogicalLimitKB":  {LogicalLimitKB: -1},
		"StorageOptions.PhysicalLimitKB": {PhysicalLimitKB: -1},
		"StorageOptions.WarnFraction":    {WarnFraction: 1.5},
	} {
		_, err := partitionstats.ReadStorage(context.Background(), c, o)
		var ve *cosmoserr.ValidationError
		if !errors.As(err, &ve) || ve.Field != field || !errors.Is(err, cosmoserr.ErrValidation) {
			t.Errorf("%s: ReadStorage = %v, want a ValidationError naming it", field, err)
		}
	}
	if n := s.Requests(cosmostest.RequestFilter{}); n != 0 {
		t.Errorf("%d requests sent for refused options", n)
	}
}
