package cosmostest

import (
	"encoding/json"
	"testing"
)

// FuzzResolutionPolicy: whatever the body says, parseResolutionPolicy never panics, and what it
// accepts is a policy the service would return (LWW on one top-level path without a procedure, or
// Custom with neither) that parses back to itself.
func FuzzResolutionPolicy(f *testing.F) {
	for _, seed := range []string{
		`null`, `{}`, `{"mode":"LastWriterWins"}`, `{"mode":"LastWriterWins","conflictResolutionPath":"/version"}`,
		`{"mode":"Custom"}`, `{"mode":"Custom","conflictResolutionProcedure":"dbs/d/colls/c/sprocs/p"}`,
		`{"mode":"LastWriterWins","conflictResolutionPath":"/a/b"}`, `{"mode":7}`, `[1]`, `"x"`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var raw any
		if json.Unmarshal([]byte(body), &raw) != nil {
			return
		}
		p, err := parseResolutionPolicy(raw)
		if err != nil {
			return
		}
		switch p.mode {
		case conflictModeLWW:
			if !validLWWPath(p.path) || p.procedure != "" {
				t.Fatalf("accepted %s as %+v", body, p)
			}
		case conflictModeCustom:
			if p.path != "" || p.procedure != "" {
				t.Fatalf("accepted %s as %+v", body, p)
			}
		default:
			t.Fatalf("accepted %s with mode %q", body, p.mode)
		}
		var again any
		_ = json.Unmarshal(mustJSON(p.json()), &again)
		if q, err := parseResolutionPolicy(again); err != nil || q != p {
			t.Fatalf("%+v parses back as %+v, %v", p, q, err)
		}
	})
}
