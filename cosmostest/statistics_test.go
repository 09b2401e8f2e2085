package cosmostest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// A container read carries partition statistics and quota headers only when asked for, in the
// service's shape.
func TestContainerReadStatistics(t *testing.T) {
	_, c := setup(t, cosmostest.WithPartitionCount(2))
	ctx := context.Background()
	for i, pk := range []string{"a", "a", "b"} {
		doc, _ := json.Marshal(map[string]any{"id": string(rune('0' + i)), "pk": pk})
		if _, err := c.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), doc, nil); err != nil {
			t.Fatal(err)
		}
	}

	plain, err := c.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := runtime.Payload(plain.RawResponse)
	var m map[string]any
	_ = json.Unmarshal(body, &m)
	if _, ok := m["statistics"]; ok || plain.RawResponse.Header.Get("x-ms-resource-usage") != "" {
		t.Fatal("statistics or usage without being asked for")
	}

	ctx = policy.WithHTTPHeader(ctx, http.Header{"x-ms-documentdb-populatepartitionstatistics": {"True"}})
	resp, err := c.Read(ctx, &azcosmos.ReadContainerOptions{PopulateQuotaInfo: true})
	if err != nil {
		t.Fatal(err)
	}
	body, _ = runtime.Payload(resp.RawResponse)
	var got struct {
		Statistics []struct {
			ID            string `json:"id"`
			SizeInKB      int64  `json:"sizeInKB"`
			DocumentCount int64  `json:"documentCount"`
			Sampled       int64  `json:"sampledDistinctPartitionKeyCount"`
			PartitionKeys []struct {
				PartitionKey []any `json:"partitionKey"`
				SizeInKB     int64 `json:"sizeInKB"`
			} `json:"partitionKeys"`
		} `json:"statistics"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Statistics) != 2 {
		t.Fatalf("statistics for %d ranges, want 2: %s", len(got.Statistics), body)
	}
	var docs, keys int64
	for _, s := range got.Statistics {
		docs += s.DocumentCount
		keys += s.Sampled
		if s.DocumentCount > 0 && (s.SizeInKB < 1 || len(s.PartitionKeys) == 0) {
			t.Fatalf("range %s: %+v", s.ID, s)
		}
		for _, k := range s.PartitionKeys {
			if len(k.PartitionKey) != 1 || k.SizeInKB < 1 {
				t.Fatalf("partition key entry %+v", k)
			}
		}
	}
	if docs != 3 || keys != 2 {
		t.Fatalf("documents %d, distinct keys %d; want 3 and 2", docs, keys)
	}
	usage := resp.RawResponse.Header.Get("x-ms-resource-usage")
	quota := resp.RawResponse.Header.Get("x-ms-resource-quota")
	if !regexpMatch(`^functions=0;storedProcedures=0;triggers=0;documentSize=0;documentsSize=1;documentsCount=3;collectionSize=1;$`, usage) {
		t.Fatalf("usage %q", usage)
	}
	if !regexpMatch(`;documentsSize=104857600;documentsCount=-1;collectionSize=104857600;$`, quota) {
		t.Fatalf("quota %q", quota)
	}
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }
