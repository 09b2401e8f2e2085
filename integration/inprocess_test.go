package integration

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// TestScenarioInProcess runs the scenario against cosmostest in this process, over TLS, with three
// physical partitions so the cross-partition query spans ranges.
func TestScenarioInProcess(t *testing.T) {
	srv := cosmostest.NewServer(t, cosmostest.WithPartitionCount(3))
	client, err := azcosmos.NewClientFromConnectionString(srv.ConnectionString(), srv.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	runScenario(t, client, false)
}
