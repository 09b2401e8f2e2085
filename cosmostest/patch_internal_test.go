package cosmostest

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestApplyPatchMove(t *testing.T) {
	tests := []struct {
		doc, from, path, want string
		fail                  bool
	}{
		{`{"a":1}`, "/a", "/b", `{"b":1}`, false},
		{`{"a":{"x":1},"b":{}}`, "/a/x", "/b/y", `{"a":{},"b":{"y":1}}`, false},
		{`{"arr":[1,2,3]}`, "/arr/0", "/arr/-", `{"arr":[2,3,1]}`, false},
		{`{"a~b":1}`, "/a~0b", "/c~1d", `{"c/d":1}`, false},
		{`{"a":1}`, "/zz", "/b", ``, true},
		{`{"a":{"b":1}}`, "/a", "/a/b/c", ``, true},
	}
	for _, tt := range tests {
		var doc map[string]any
		_ = json.Unmarshal([]byte(tt.doc), &doc)
		err := applyPatchOp(doc, patchOp{Op: "move", From: tt.from, Path: tt.path})
		if tt.fail {
			if err == nil {
				t.Errorf("move %s -> %s: no error", tt.from, tt.path)
			}
			continue
		}
		if err != nil {
			t.Errorf("move %s -> %s: %v", tt.from, tt.path, err)
			continue
		}
		var want map[string]any
		_ = json.Unmarshal([]byte(tt.want), &want)
		if diff := cmp.Diff(want, doc); diff != "" {
			t.Errorf("move %s -> %s: %s", tt.from, tt.path, diff)
		}
	}
}
