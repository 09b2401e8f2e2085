package wire

import (
	"encoding/base64"
	"testing"
)

func TestParseQueryMetrics(t *testing.T) {
	m, ok := ParseQueryMetrics("totalExecutionTimeInMs=0.10;queryCompileTimeInMs=0.01;retrievedDocumentCount=1000;retrievedDocumentSize=2048;outputDocumentCount=10;outputDocumentSize=512;indexUtilizationRatio=0.01;bogus;x=")
	if !ok || m.RetrievedDocumentCount != 1000 || m.RetrievedDocumentSize != 2048 || m.OutputDocumentCount != 10 || m.OutputDocumentSize != 512 || m.IndexHitRatio != 0.01 || m.TotalExecutionTimeMs != 0.1 {
		t.Errorf("got %+v, %v", m, ok)
	}
	for _, s := range []string{"", "a=b", "retrievedDocumentCount=x;outputDocumentCount=-3"} {
		if m, ok := ParseQueryMetrics(s); ok {
			t.Errorf("%q: %+v, ok", s, m)
		}
	}
}

func TestParseIndexUtilization(t *testing.T) {
	j := `{"UtilizedSingleIndexes":[{"FilterExpression":"","IndexSpec":"/name/?","FilterPreciseSet":true,"IndexPreciseSet":true,"IndexImpactScore":"High"}],"PotentialSingleIndexes":[],"UtilizedCompositeIndexes":[],"PotentialCompositeIndexes":[{"IndexSpecs":["/name ASC","/age ASC"],"IndexPreciseSet":false,"IndexImpactScore":"High"}]}`
	for _, s := range []string{base64.StdEncoding.EncodeToString([]byte(j)), j} {
		u, err := ParseIndexUtilization(s)
		if err != nil || len(u.UtilizedSingleIndexes) != 1 || u.UtilizedSingleIndexes[0].IndexSpec != "/name/?" ||
			len(u.PotentialCompositeIndexes) != 1 || u.PotentialCompositeIndexes[0].IndexSpecs[1] != "/age ASC" {
			t.Errorf("got %+v, %v", u, err)
		}
	}
	if _, err := ParseIndexUtilization("!!"); err == nil {
		t.Error("bad base64 accepted")
	}
}

func FuzzParseQueryMetrics(f *testing.F) {
	f.Add("retrievedDocumentCount=1000;outputDocumentCount=10")
	f.Add(";;==;retrievedDocumentCount=;indexUtilizationRatio=NaN")
	f.Fuzz(func(t *testing.T, s string) {
		m, ok := ParseQueryMetrics(s)
		if ok && m.RetrievedDocumentCount < 0 && m.OutputDocumentCount < 0 {
			t.Errorf("ok without counts: %+v", m)
		}
		if m.IndexHitRatio != m.IndexHitRatio {
			t.Error("NaN ratio")
		}
	})
}

func FuzzParseIndexUtilization(f *testing.F) {
	f.Add(`{"UtilizedSingleIndexes":[{"IndexSpec":"/a/?"}]}`)
	f.Add("e30=")
	f.Fuzz(func(t *testing.T, s string) { _, _ = ParseIndexUtilization(s) })
}

func BenchmarkParseQueryMetrics(b *testing.B) {
	const h = "totalExecutionTimeInMs=0.10;queryCompileTimeInMs=0.01;queryLogicalPlanBuildTimeInMs=0.00;queryPhysicalPlanBuildTimeInMs=0.00;queryOptimizationTimeInMs=0.00;VMExecutionTimeInMs=0.01;indexLookupTimeInMs=0.00;documentLoadTimeInMs=0.00;systemFunctionExecuteTimeInMs=0.00;userFunctionExecuteTimeInMs=0.00;retrievedDocumentCount=1000;retrievedDocumentSize=2048;outputDocumentCount=10;outputDocumentSize=512;writeOutputTimeInMs=0.00;indexUtilizationRatio=1.00"
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := ParseQueryMetrics(h); !ok {
			b.Fatal("not parsed")
		}
	}
}
