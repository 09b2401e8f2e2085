package wire

import (
	"maps"
	"strings"
	"testing"
)

func TestResourceValues(t *testing.T) {
	got := ResourceValues("functions=0;storedProcedures=0;triggers=0;documentSize=10178;documentsSize=5781669;documentsCount=17151514;collectionSize=10422760;bad;x=y;=3")
	want := map[string]int64{"functions": 0, "storedProcedures": 0, "triggers": 0, "documentSize": 10178, "documentsSize": 5781669, "documentsCount": 17151514, "collectionSize": 10422760}
	if !maps.Equal(got, want) {
		t.Fatalf("got %v", got)
	}
	if len(ResourceValues("")) != 0 {
		t.Fatal("empty header")
	}
}

func FuzzResourceValues(f *testing.F) {
	f.Add("documentsSize=884;documentsCount=-1;")
	f.Add(";;==;a=1=2")
	f.Fuzz(func(t *testing.T, h string) {
		for name := range ResourceValues(h) {
			if name == "" || strings.ContainsAny(name, ";=") {
				t.Fatalf("name %q from %q", name, h)
			}
		}
	})
}
