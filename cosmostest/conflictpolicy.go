package cosmostest

import (
	"encoding/json"
	"strings"
)

// Conflict resolution modes, as the service spells them in a container's conflictResolutionPolicy.
const (
	conflictModeLWW    = "LastWriterWins"
	conflictModeCustom = "Custom"
	// defaultConflictPath is the LastWriterWins path when none is given: the system timestamp.
	defaultConflictPath = "/_ts"
)

// resolutionPolicy is a container's conflict resolution policy, validated and with the service's
// defaults filled in.
type resolutionPolicy struct {
	mode      string // conflictModeLWW or conflictModeCustom
	path      string // LastWriterWins: "/prop" (default "/_ts"); Custom: ""
	procedure string // always "": a merge procedure is refused (stored procedures are not simulated)
}

// json is the policy as the service returns it on container create, read and replace.
func (p resolutionPolicy) json() map[string]any {
	return map[string]any{"mode": p.mode, "conflictResolutionPath": p.path, "conflictResolutionProcedure": p.procedure}
}

// parseResolutionPolicy validates the conflictResolutionPolicy of a container body (raw, nil when
// absent) as the service does, per the multi-master tests of the Java SDK
// (MultiMasterConflictResolutionTest), which run against the service:
//   - no policy, or a LastWriterWins policy without a path, is LastWriterWins on "/_ts";
//   - a LastWriterWins path must be one top-level property, "/name": "/a/b" and "someText" are 400
//     "Invalid path '…' for last writer wins conflict resolution";
//   - LastWriterWins with a procedure, or Custom with a path, is 400 with the service's message;
//   - Custom without a procedure sends every conflict's loser to the conflicts feed.
//
// Unverified and chosen here: an empty mode is LastWriterWins (azcosmos sends "mode":"" for a zero
// ConflictResolutionPolicy), mode names are matched exactly, and the message for an unknown mode
// is cosmostest's own. Custom with a merge procedure is refused as not supported: cosmostest does
// not run stored procedures.
func parseResolutionPolicy(raw any) (resolutionPolicy, error) {
	p := resolutionPolicy{mode: conflictModeLWW, path: defaultConflictPath}
	if raw == nil {
		return p, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return p, badRequest("The conflictResolutionPolicy must be a JSON object with mode, conflictResolutionPath and conflictResolutionProcedure.")
	}
	str := func(k string) (string, error) {
		switch v := m[k].(type) {
		case nil:
			return "", nil
		case string:
			return v, nil
		default:
			return "", badRequest("The conflictResolutionPolicy property %s must be a string.", k)
		}
	}
	mode, err := str("mode")
	if err != nil {
		return p, err
	}
	path, err := str("conflictResolutionPath")
	if err != nil {
		return p, err
	}
	proc, err := str("conflictResolutionProcedure")
	if err != nil {
		return p, err
	}
	switch mode {
	case "", conflictModeLWW:
		if proc != "" {
			return p, badRequest("LastWriterWins conflict resolution mode should not have conflict resolution procedure set.")
		}
		if path == "" {
			return p, nil
		}
		if !validLWWPath(path) {
			return p, badRequest("Invalid path '%s' for last writer wins conflict resolution.", path)
		}
		p.path = path
		return p, nil
	case conflictModeCustom:
		if path != "" {
			return p, badRequest("Custom conflict resolution mode should not have conflict resolution path set.")
		}
		if proc != "" {
			return p, unsupported("a Custom conflict resolution policy with a merge procedure (" + proc + "): stored procedures are not simulated; leave conflictResolutionProcedure empty to have every conflict's loser written to the conflicts feed")
		}
		return resolutionPolicy{mode: conflictModeCustom}, nil
	}
	return p, badRequest("The conflict resolution mode '%s' is invalid: it must be LastWriterWins or Custom.", mode)
}

// validLWWPath reports whether path names one top-level property ("/version"), the only paths the
// service accepts for last-writer-wins resolution.
func validLWWPath(path string) bool {
	name, ok := strings.CutPrefix(path, "/")
	return ok && name != "" && !strings.ContainsAny(name, "/*?")
}

// storedResolutionPolicy returns c's stored policy (parseContainerBody keeps it validated).
func (c *container) storedResolutionPolicy() resolutionPolicy {
	m, _ := c.props["conflictResolutionPolicy"].(map[string]any)
	p := resolutionPolicy{mode: conflictModeLWW, path: defaultConflictPath}
	if m == nil {
		return p
	}
	p.mode, _ = m["mode"].(string)
	p.path, _ = m["conflictResolutionPath"].(string)
	p.procedure, _ = m["conflictResolutionProcedure"].(string)
	return p
}

// keepResolutionPolicy applies the service's rule on container replace: the conflict resolution
// policy cannot be changed after creation (400 "Updating conflict resolution policy is currently
// not supported", MultiMasterConflictResolutionTest). A replace body without a policy keeps the
// stored one (chosen here, unverified: the service may read the omission as the default policy
// and refuse it for a Custom container); props is the parsed body, updated in place.
func keepResolutionPolicy(body []byte, props map[string]any, c *container) error {
	var probe struct {
		Policy json.RawMessage `json:"conflictResolutionPolicy"`
	}
	_ = json.Unmarshal(body, &probe) // parseContainerBody has parsed the body already
	old := c.storedResolutionPolicy()
	if len(probe.Policy) == 0 || string(probe.Policy) == "null" {
		props["conflictResolutionPolicy"] = old.json()
		return nil
	}
	if m, _ := props["conflictResolutionPolicy"].(map[string]any); m != nil {
		if m["mode"] != old.mode || m["conflictResolutionPath"] != old.path || m["conflictResolutionProcedure"] != old.procedure {
			return badRequest("Updating conflict resolution policy is currently not supported.")
		}
	}
	return nil
}
