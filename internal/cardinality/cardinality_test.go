package cardinality

import "testing"

func TestLowPath(t *testing.T) {
	for path, want := range map[string]bool{
		"/status": true, "/type": true, "/country": true, "/order/Status": true, "/is_active": true, "/subscription-tier": true,
		"/tenantId": false, "/userId": false, "/id": false, "/pk": false, "/statusHistory": false, "": false,
	} {
		if got := LowPath(path); got != want {
			t.Errorf("LowPath(%q) = %v, want %v", path, got, want)
		}
	}
}
