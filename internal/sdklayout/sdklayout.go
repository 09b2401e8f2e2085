// Package sdklayout is the one place that reads azcosmos values whose contents the SDK keeps
// unexported, by reflection (strings, floats and bools only; no unsafe):
//
//   - the components of an azcosmos.PartitionKey (azcosmos v1.5.0: a struct holding one
//     []interface{} of string, float64, bool or nil values), so a key built with the SDK can be
//     checked before anything is sent;
//   - the account endpoint and database id of an azcosmos.ContainerClient (v1.5.0: a pointer field
//     database to a DatabaseClient with a string id and a pointer client to a Client with a string
//     endpoint), which bind end users' continuation and page tokens to their container.
//
// A reader answers ok=false for any other layout; it never guesses. Check probes both layouts with
// values whose contents are known, so an azcosmos upgrade that changes them is reported at client
// construction (cosmoskit.New logs a warning and counts diagnostics.MetricSDKLayoutMismatches)
// rather than discovered as a silently weaker check. The degraded behaviour of each layout is
// described by its Layout's Degraded text.
package sdklayout

import (
	"log/slog"
	"reflect"
	"runtime/debug"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// Layout names one unexported azcosmos layout the library reads.
type Layout string

const (
	// PartitionKey is the components of an azcosmos.PartitionKey.
	PartitionKey Layout = "partition_key"
	// ContainerIdentity is the account endpoint and database id of an azcosmos.ContainerClient.
	ContainerIdentity Layout = "container_identity"
)

// Degraded says what the library does while the layout cannot be read.
func (l Layout) Degraded() string {
	switch l {
	case PartitionKey:
		return "an azcosmos.PartitionKey passed to repository is sent without the client-side checks (component count, lengths, match with the item's own key); the service still checks it"
	case ContainerIdentity:
		return "page and continuation tokens are bound to the container id only, not to the account and database: a token is no longer refused on a container of the same id in another account or database (it is still refused on any other container, query or scope)"
	}
	return ""
}

// The seams through which the readers take their values: a test replaces them with values of
// another layout to prove the degraded path.
var (
	partitionKeyValue = func(pk azcosmos.PartitionKey) any { return pk }
	containerValue    = func(c *azcosmos.ContainerClient) any { return c }
)

// PartitionKeyValues returns the components of pk (string, float64, bool or nil each), ok=false
// when pk's layout is not the one this package knows or holds a component of another kind.
func PartitionKeyValues(pk azcosmos.PartitionKey) (vals []any, ok bool) {
	return partitionKeyValues(reflect.ValueOf(partitionKeyValue(pk)))
}

func partitionKeyValues(v reflect.Value) ([]any, bool) {
	if v.Kind() != reflect.Struct || v.NumField() != 1 {
		return nil, false
	}
	s := v.Field(0)
	if s.Kind() != reflect.Slice || s.Type().Elem().Kind() != reflect.Interface {
		return nil, false
	}
	vals := make([]any, s.Len())
	for i := range vals {
		e := s.Index(i)
		if e.IsNil() {
			continue // null
		}
		switch e = e.Elem(); e.Kind() {
		case reflect.String:
			vals[i] = e.String()
		case reflect.Float64:
			vals[i] = e.Float()
		case reflect.Bool:
			vals[i] = e.Bool()
		default:
			return nil, false
		}
	}
	return vals, true
}

// ContainerAccount returns the account endpoint and database id of c, ok=false when c is nil or its
// layout is not the one this package knows.
func ContainerAccount(c *azcosmos.ContainerClient) (endpoint, database string, ok bool) {
	if c == nil {
		return "", "", false
	}
	return containerAccount(reflect.ValueOf(containerValue(c)))
}

func containerAccount(v reflect.Value) (endpoint, database string, ok bool) {
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return "", "", false
	}
	dbf := v.Elem().FieldByName("database")
	if dbf.Kind() != reflect.Pointer || dbf.IsNil() || dbf.Elem().Kind() != reflect.Struct {
		return "", "", false
	}
	d := dbf.Elem()
	idf, clf := d.FieldByName("id"), d.FieldByName("client")
	if idf.Kind() != reflect.String || clf.Kind() != reflect.Pointer || clf.IsNil() || clf.Elem().Kind() != reflect.Struct {
		return "", "", false
	}
	ep := clf.Elem().FieldByName("endpoint")
	if ep.Kind() != reflect.String {
		return "", "", false
	}
	return ep.String(), idf.String(), true
}

// Check reads both layouts from values whose contents it knows (a partition key it builds, and a
// container handle of client, which does no I/O) and returns the layouts that could not be read
// or read wrong, nil when both read as expected. client nil checks the partition key only.
func Check(client *azcosmos.Client) []Layout {
	var bad []Layout
	pk := azcosmos.NewPartitionKeyString("a").AppendNumber(1.5).AppendBool(true).AppendNull()
	want := []any{"a", 1.5, true, nil}
	if got, ok := PartitionKeyValues(pk); !ok || !reflect.DeepEqual(got, want) {
		bad = append(bad, PartitionKey)
	}
	if client != nil {
		c, err := client.NewContainer("cosmoskit-layout-probe-db", "cosmoskit-layout-probe")
		if err != nil {
			bad = append(bad, ContainerIdentity)
		} else if ep, db, ok := ContainerAccount(c); !ok || ep != client.Endpoint() || db != "cosmoskit-layout-probe-db" {
			bad = append(bad, ContainerIdentity)
		}
	}
	return bad
}

// SDKVersion returns the azcosmos version linked into the binary ("unknown" without build info).
func SDKVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos" {
				if d.Replace != nil {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return "unknown"
}

// SupportedSDK is the azcosmos version whose layouts this package reads (docs/versioning.md lists
// the versions tested).
const SupportedSDK = "v1.5.0"

// Warn logs, at warning level, that layout l of the linked azcosmos cannot be read, and what the
// library does instead.
func Warn(logger *slog.Logger, l Layout) {
	logger.Warn("cosmoskit: azcosmos "+SDKVersion()+" keeps "+string(l)+" in a layout cosmoskit cannot read (it reads azcosmos "+SupportedSDK+"'s); degraded until cosmoskit supports this azcosmos: "+l.Degraded(),
		"layout", string(l), "azcosmos", SDKVersion())
}

var warnedIdentity sync.Once

// WarnIdentityOnce logs ContainerIdentity's warning to slog.Default, once per process: for code
// that binds tokens on a container handle whose client was not built by cosmoskit.New (which
// reports through its own logger and meter).
func WarnIdentityOnce() {
	warnedIdentity.Do(func() { Warn(slog.Default(), ContainerIdentity) })
}

// ReplaceForTest makes the readers take their values from pk and c instead of the SDK values they
// are given (nil keeps a seam as it is), so a test can feed values of another layout; restore puts
// the seams back. Tests only; not safe while other goroutines read layouts.
func ReplaceForTest(pk func(azcosmos.PartitionKey) any, c func(*azcosmos.ContainerClient) any) (restore func()) {
	oldPK, oldC := partitionKeyValue, containerValue
	if pk != nil {
		partitionKeyValue = pk
	}
	if c != nil {
		containerValue = c
	}
	return func() { partitionKeyValue, containerValue = oldPK, oldC }
}
