package cosmoskit

import (
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/tracing"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// settings are the parts of a Config, beyond the account and identity, that shape the client: two
// New calls for the same account must agree on every one of them, or the second gets
// a *cosmoserr.ConfigConflictError listing the fields that differ. They are:
//
//   - PreferredRegions (or ClientOptions.PreferredRegions) and ExcludedRegions, canonical and in order;
//   - ApplicationName, the server certificate's fingerprint, DisableEndpointDiscovery;
//   - Logger, PerCallPolicies, PerRetryPolicies;
//   - every field of Diagnostics, of Retry, of Session, of Connections and of *ClientOptions (its contents, not
//     the pointer).
//
// Values are compared as given (a zero value and its documented default differ). Loggers
// (Logger, Diagnostics.Logger) are compared by handler (see loggerIdentity). Values that Go
// cannot compare by content are compared by identity: pointers (a Transport,
// a TracerProvider) and interface values by ==, funcs (Retry.ShouldRetry) by their code, so two
// closures of one func literal count as the same; a policy or transport value of a type that is
// not comparable at all is compared by its type only; ClientOptions.TracingProvider (whose
// contents azcore keeps unexported) by whether it traces. Config.Database is not compared: New
// does not use it. Nothing here holds a secret: credentials are the registry key's business.
type settings []setting

type setting struct {
	name string
	val  any
	show bool // the value may be printed in the conflict message
}

func settingsOf(r *resolved) settings {
	c := r.cfg
	s := make(settings, 0, 64)
	s = append(s, settings{
		{name: "PreferredRegions", val: strings.Join(canonicalRegions(r.preferred), ","), show: true},
		{name: "ExcludedRegions", val: strings.Join(canonicalRegions(r.excluded), ","), show: true},
		{name: "ApplicationName", val: r.appName, show: true},
		{name: "ServerCertificate", val: ""},
		{name: "DisableEndpointDiscovery", val: c.DisableEndpointDiscovery, show: true},
		{name: "Logger", val: loggerIdentity(c.Logger)},
	}...)
	if r.cert != nil {
		s[3].val = certFingerprint(r.cert.Raw)
	}
	s.flatten("PerCallPolicies", reflect.ValueOf(c.PerCallPolicies))
	s.flatten("PerRetryPolicies", reflect.ValueOf(c.PerRetryPolicies))
	s.flatten("Diagnostics", reflect.ValueOf(c.Diagnostics))
	s.flatten("Session", reflect.ValueOf(c.Session))
	s.flatten("Connections", reflect.ValueOf(c.Connections))
	s.flatten("Retry", reflect.ValueOf(c.Retry))
	if c.ClientOptions != nil {
		co := *c.ClientOptions
		co.PreferredRegions = nil // compared above, canonically
		s.flatten("ClientOptions", reflect.ValueOf(co))
	} else {
		s = append(s, setting{name: "ClientOptions", val: "nil"})
	}
	return s
}

var tracingProviderType = reflect.TypeFor[tracing.Provider]()

// flatten appends one setting per comparable leaf of v, named by its field path.
func (s *settings) flatten(name string, v reflect.Value) {
	add := func(val any, show bool) { *s = append(*s, setting{name: name, val: val, show: show}) }
	if !v.IsValid() {
		add("nil", true)
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == tracingProviderType {
			add(v.Interface().(tracing.Provider).NewTracer("cosmoskit", "").Enabled(), true)
			return
		}
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue // unexported fields of an options struct are not settings
			}
			fname := f.Name
			if f.Anonymous {
				s.flatten(name, v.Field(i)) // embedded azcore.ClientOptions: its fields by their own names
				continue
			}
			s.flatten(name+"."+fname, v.Field(i))
		}
	case reflect.Slice:
		if v.IsNil() {
			*s = append(*s, setting{name: name + ".len", val: "nil", show: true})
			return
		}
		*s = append(*s, setting{name: name + ".len", val: v.Len(), show: true})
		for i := range v.Len() {
			s.flatten(name+"["+strconv.Itoa(i)+"]", v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			*s = append(*s, setting{name: name + ".len", val: "nil", show: true})
			return
		}
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		*s = append(*s, setting{name: name + ".len", val: v.Len(), show: true})
		for _, k := range keys {
			s.flatten(fmt.Sprintf("%s[%v]", name, k), v.MapIndex(k))
		}
	case reflect.Interface:
		if v.IsNil() {
			add("nil", true)
			return
		}
		e := v.Elem()
		if e.Type().Comparable() {
			add(e.Interface(), false)
			return
		}
		add("value of type "+e.Type().String(), false)
	case reflect.Func:
		if v.IsNil() {
			add("nil", true)
			return
		}
		add(v.Pointer(), false)
	case reflect.Pointer:
		switch {
		case v.Type() == loggerType:
			add(loggerIdentity(v.Interface().(*slog.Logger)), false) // Diagnostics.Logger: by handler
		case v.IsNil():
			add("nil", true)
		case v.Elem().Kind() <= reflect.Complex128 || v.Elem().Kind() == reflect.String:
			add(v.Elem().Interface(), true) // *int32, *PriorityLevel: by value
		default:
			add(v.Interface(), false) // by identity
		}
	case reflect.Chan, reflect.UnsafePointer:
		add(v.Pointer(), false)
	default: // bool, numbers, strings: comparable and not secret
		add(v.Interface(), true)
	}
}

// diff lists the settings of o (the new config) that differ from s (the open client's), as
// cosmoserr.Differences in Config order, with Want (o's) and Have (s's) only for plain values
// (regions, names, numbers, durations, switches), never a logger, policy, credential or
// pointer; nil when they agree. A slice or map is named once, not element by element, without
// values; a value that is set in one config and absent from the other (a nil ClientOptions) is
// named by its top-level field.
func (s settings) diff(o settings) []cosmoserr.Difference {
	mine := make(map[string]setting, len(s))
	for _, x := range s {
		mine[x.name] = x
	}
	theirs := make(map[string]bool, len(o))
	var out []cosmoserr.Difference
	seen := map[string]bool{}
	note := func(d cosmoserr.Difference) {
		if !seen[d.Field] {
			seen[d.Field] = true
			out = append(out, d)
		}
	}
	for _, x := range o {
		theirs[x.name] = true
		y, ok := mine[x.name]
		switch {
		case !ok:
			note(cosmoserr.Difference{Field: missing(x.name)})
		case !equalSetting(x.val, y.val):
			root := collection(x.name)
			if root == x.name && x.show && y.show {
				note(cosmoserr.Difference{Field: x.name, Want: printable(x.val), Have: printable(y.val)})
			} else {
				note(cosmoserr.Difference{Field: root})
			}
		}
	}
	for _, y := range s {
		if !theirs[y.name] {
			note(cosmoserr.Difference{Field: missing(y.name)})
		}
	}
	// A field named whole (ClientOptions set in one config only) stands for its parts.
	return slices.DeleteFunc(out, func(d cosmoserr.Difference) bool {
		for i := range len(d.Field) {
			if (d.Field[i] == '.' || d.Field[i] == '[') && seen[d.Field[:i]] {
				return true
			}
		}
		return false
	})
}

// collection returns the slice or map a setting name is an element (or the length) of, else name.
func collection(name string) string {
	root := strings.TrimSuffix(name, ".len")
	if i := strings.IndexByte(root, '['); i >= 0 {
		root = root[:i]
	}
	return root
}

// missing names a setting present in only one config: an element of a slice or map (one is
// longer) by the collection, anything else (under a nil ClientOptions) by its top-level field.
func missing(name string) string {
	if c := collection(name); c != name {
		return c
	}
	if i := strings.IndexAny(name, ".["); i >= 0 {
		return name[:i]
	}
	return name
}

// printable is a plain setting's value for a Difference: "(none)" for an empty one.
func printable(v any) string {
	if s := fmt.Sprint(v); s != "" {
		return s
	}
	return "(none)"
}

var loggerType = reflect.TypeFor[*slog.Logger]()

// loggerIdentity is what a *slog.Logger is compared by: its handler. Two loggers are the same
// setting when both are nil, or their Handler() values are == (slog.New(h) twice with one handler
// h, or equal comparable handler values such as slog.DiscardHandler); a logger whose handler is
// of a type Go cannot compare is the same only as itself. Loggers derived with With or
// WithGroup have handlers of their own, so they differ from their parent.
func loggerIdentity(l *slog.Logger) any {
	if l == nil {
		return "nil"
	}
	h := l.Handler()
	if h != nil && reflect.TypeOf(h).Comparable() {
		return struct{ h slog.Handler }{h}
	}
	return l
}

// equalSetting compares two setting values; values of a type Go cannot compare (never produced by
// flatten, which reduces them) are unequal.
func equalSetting(a, b any) (eq bool) {
	defer func() {
		if recover() != nil {
			eq = false
		}
	}()
	return a == b
}
