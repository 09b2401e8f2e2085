package cosmoskit

import (
	"fmt"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// DefaultConflictResolutionPath is the last-writer-wins path when ConflictResolutionSpec.Path is
// empty: the system timestamp, in whole seconds.
const DefaultConflictResolutionPath = "/_ts"

// ConflictResolutionSpec is a container's conflict resolution policy: how an account with
// multi-region writes settles two regions writing one item concurrently. On a single-write account
// it is stored and has no effect. The zero value is last-writer-wins on /_ts. The policy cannot be
// changed after the container is created (the service answers 400), so choose it up front.
//
// Last writer wins on /_ts keeps the version written last by the service's clock, in whole
// seconds: two writes within one second are decided by the service, not by your order. When
// "latest" has a meaning in the application (a version counter, an event time), put it in a
// numeric top-level property and resolve on it:
//
//	ConflictResolution: cosmoskit.ConflictResolutionSpec{Path: "/version"}
//
// and have every writer set version to one more than the version it read, in a read-modify-write
// with If-Match on the etag (retry.Do starts it over on 412): the etag keeps one region's writers
// in order, and the policy settles the writes of two regions. Every region then converges to the
// version with the highest /version, whichever region wrote it last. Two regions that both move
// version 4 to 5 tie, and the service picks the winner; add a region or instance number as a
// fraction (5.1, 5.2) if you must decide ties. A delete wins over a concurrent create or replace
// whatever the values. The service documents that the path must be present in every item and hold a number;
// what it does with an item without it is not documented, so write it on every item.
//
// Custom mode with no Procedure keeps one version and writes each conflict's losing version to
// the container's conflicts feed, for the application to merge (package conflicts reads and
// deletes them). With a Procedure the merge stored procedure decides, and only conflicts it fails
// on reach the feed.
type ConflictResolutionSpec struct {
	// Mode is azcosmos.ConflictResolutionModeLastWriteWins ("LastWriterWins") or
	// azcosmos.ConflictResolutionModeCustom ("Custom"). Default: last writer wins.
	Mode azcosmos.ConflictResolutionMode

	// Path is the last-writer-wins property: one top-level property holding a number, e.g.
	// "/version" (the service refuses nested paths such as "/a/b"); the highest value wins.
	// Default: DefaultConflictResolutionPath ("/_ts"). Must be empty in Custom mode.
	Path string

	// Procedure is the Custom mode's merge stored procedure, as its full link
	// "dbs/<database>/colls/<container>/sprocs/<id>". Default: none, every conflict goes to the
	// conflicts feed. Must be empty in last-writer-wins mode.
	Procedure string
}

// policy validates s and returns the policy sent, with the defaults written out (so that it reads
// back equal), or a refusal naming the field.
func (s ConflictResolutionSpec) policy(bad func(field, format string, args ...any) error) (*azcosmos.ConflictResolutionPolicy, error) {
	switch s.Mode {
	case "", azcosmos.ConflictResolutionModeLastWriteWins:
		if s.Procedure != "" {
			return nil, bad("ConflictResolution.Procedure", "is set in last-writer-wins mode; a merge procedure needs Mode: azcosmos.ConflictResolutionModeCustom")
		}
		path := s.Path
		if path == "" {
			path = DefaultConflictResolutionPath
		}
		name, ok := strings.CutPrefix(path, "/")
		if !ok || name == "" || strings.ContainsAny(name, "/*?") {
			return nil, bad("ConflictResolution.Path", "%q is not one top-level property such as /version (the service refuses nested paths and paths without a leading /)", path)
		}
		return &azcosmos.ConflictResolutionPolicy{Mode: azcosmos.ConflictResolutionModeLastWriteWins, ResolutionPath: path}, nil
	case azcosmos.ConflictResolutionModeCustom:
		if s.Path != "" {
			return nil, bad("ConflictResolution.Path", "is set in Custom mode; a path is for last-writer-wins mode (leave Mode empty)")
		}
		if p := s.Procedure; p != "" {
			segs := strings.Split(p, "/")
			if len(segs) != 6 || segs[0] != "dbs" || segs[2] != "colls" || segs[4] != "sprocs" || segs[1] == "" || segs[3] == "" || segs[5] == "" {
				return nil, bad("ConflictResolution.Procedure", "%q is not a stored procedure link dbs/<database>/colls/<container>/sprocs/<id>", p)
			}
		}
		return &azcosmos.ConflictResolutionPolicy{Mode: azcosmos.ConflictResolutionModeCustom, ResolutionProcedure: s.Procedure}, nil
	}
	return nil, bad("ConflictResolution.Mode", "%q is not LastWriterWins or Custom", s.Mode)
}

// conflictPolicyMismatch describes how an existing container's policy differs from want ("" if
// it does not, or if the service did not return one).
func conflictPolicyMismatch(want, got *azcosmos.ConflictResolutionPolicy) string {
	if want == nil || got == nil {
		return ""
	}
	g := *got
	if g.Mode == "" {
		g.Mode = azcosmos.ConflictResolutionModeLastWriteWins
	}
	if g.Mode == azcosmos.ConflictResolutionModeLastWriteWins && g.ResolutionPath == "" {
		g.ResolutionPath = DefaultConflictResolutionPath
	}
	if g == *want {
		return ""
	}
	return fmt.Sprintf("it has conflict resolution policy %+v, the spec asks for %+v; a conflict resolution policy cannot be changed after creation", g, *want)
}
