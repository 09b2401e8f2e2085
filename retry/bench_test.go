package retry_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/cosmoskit/cosmoskit-go/retry"
)

const benchAccount = `{"writableLocations":[{"name":"West US","databaseAccountEndpoint":"https://west.test/"}],
"readableLocations":[{"name":"West US","databaseAccountEndpoint":"https://west.test/"},
{"name":"East US","databaseAccountEndpoint":"https://east.test/"}]}`

// cannedTransport answers GET / with the account and everything else with 200 {}.
type cannedTransport struct{}

func (cannedTransport) Do(req *http.Request) (*http.Response, error) {
	body := `{}`
	if req.URL.Path == "/" {
		body = benchAccount
	}
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Header: http.Header{"X-Ms-Request-Charge": {"1"}},
		Body: io.NopCloser(bytes.NewReader([]byte(body))), Request: req}, nil
}

// BenchmarkPipelinePolicy measures the policy's cost per point read on a canned transport (no
// network): compare the "none" and "policy" sub-benchmarks with benchstat.
func BenchmarkPipelinePolicy(b *testing.B) {
	for _, bc := range []struct {
		name     string
		install  bool
		excluded []string
	}{
		{name: "none"},
		{name: "policy", install: true},
		{name: "policy/excluded", install: true, excluded: []string{"East US"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			o := &policy.ClientOptions{Transport: cannedTransport{}}
			if bc.install {
				p := mustPolicy(b, retry.Options{})
				p.SetExcludedRegions(bc.excluded...)
				o.PerRetryPolicies = []policy.Policy{p}
			}
			pl := runtime.NewPipeline("bench", "v0", runtime.PipelineOptions{}, o)
			ctx := context.Background()
			do := func(url string) {
				req, err := runtime.NewRequest(ctx, http.MethodGet, url)
				if err != nil {
					b.Fatal(err)
				}
				resp, err := pl.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
			}
			do("https://west.test/") // the account metadata
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				do("https://west.test/dbs/db/colls/c/docs/a")
			}
		})
	}
}
