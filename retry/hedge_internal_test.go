package retry

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

type marker struct{ n int }

// TestIsolateValues checks the reflection against the azcore in go.mod: a clone's operation values
// become its own, so a hedged attempt's writes do not reach the request it was cloned from.
func TestIsolateValues(t *testing.T) {
	req, err := runtime.NewRequest(context.Background(), http.MethodGet, "https://example.invalid/")
	if err != nil {
		t.Fatal(err)
	}
	req.SetOperationValue(marker{1})
	if !knownRequestLayout() {
		t.Fatal("policy.Request's fields are not the ones hedging was checked against: hedging is off")
	}
	arm := req.Clone(context.Background())
	if !isolateValues(arm) {
		t.Fatal("isolateValues found no operation values map in this azcore: hedging is off")
	}
	arm.SetOperationValue(marker{2})
	var got marker
	if !req.OperationValue(&got) || got.n != 1 {
		t.Errorf("the original request sees %+v after the clone set marker{2}", got)
	}
	if !arm.OperationValue(&got) || got.n != 2 {
		t.Errorf("the clone lost its own value: %+v", got)
	}
}

// TestHedgingFallsBackWithoutValuesField simulates an azcore whose policy.Request has no operation
// values map where this package looks for it: hedging must turn itself off and reads must still
// succeed through the ordinary routing, with nothing sent concurrently.
func TestHedgingFallsBackWithoutValuesField(t *testing.T) {
	orig := requestValuesField
	requestValuesField = "noSuchField"
	t.Cleanup(func() { requestValuesField = orig })
	req, err := runtime.NewRequest(context.Background(), http.MethodGet, "https://example.invalid/")
	if err != nil {
		t.Fatal(err)
	}
	if isolateValues(req) {
		t.Fatal("isolateValues reported success without the field")
	}

	s := cosmostest.NewServer(t, cosmostest.WithRegions("West US", "East US"))
	co := s.ClientOptions()
	co.PreferredRegions = []string{"East US", "West US"}
	p := NewPipelinePolicy(Options{PreferredRegions: co.PreferredRegions, Hedging: HedgingOptions{Enable: true, Threshold: time.Millisecond}})
	p.Install(co)
	c, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), co)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx := context.Background()
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := c.NewDatabase("db")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		t.Fatal(err)
	}
	cc, _ := db.NewContainer("c")
	pk := azcosmos.NewPartitionKeyString("p")
	if _, err := cc.CreateItem(ctx, pk, []byte(`{"id":"a","pk":"p"}`), nil); err != nil {
		t.Fatal(err)
	}
	s.InjectFault(cosmostest.Fault{Region: "East US", Operation: cosmostest.OpRead, ResourceType: cosmostest.ResourceDocument, Delay: 50 * time.Millisecond})
	s.ResetRequests()
	for range 3 {
		if _, err := cc.ReadItem(ctx, pk, "a", nil); err != nil {
			t.Fatalf("read with hedging unavailable: %v", err)
		}
	}
	reads := func(region string) int {
		return s.Requests(cosmostest.RequestFilter{Region: region, Operation: cosmostest.OpRead, ResourceType: cosmostest.ResourceDocument})
	}
	// Hedging would have sent each slow East US read to West US after 1 ms.
	if e, w := reads("East US"), reads("West US"); e != 3 || w != 0 {
		t.Errorf("East US %d, West US %d reads; want 3 and 0 (no hedging)", e, w)
	}
}

var _ policy.Policy = (*PipelinePolicy)(nil)
