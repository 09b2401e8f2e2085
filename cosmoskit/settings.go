package cosmoskit

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/tracing"
)

// settings are the parts of a Config, beyond the account and identity, that shape the client: two
// New calls for the same account must agree on every one of them, or the second gets
// ErrConfigConflict naming the fields that differ. They are:
//
//   - PreferredRegions (or ClientOptions.PreferredRegions) and ExcludedRegions, canonical and in order;
//   - ApplicationName, the server certificate's fingerprint, DisableEndpointDiscovery;
//   - Logger, PerCallPolicies, PerRetryPolicies;
//   - every field of Diagnostics, of Retry, of Session and of *ClientOptions (its contents, not
//     the pointer).
//
// Values are compared as given (a zero value and its documented default differ). Values that Go
// cannot compare by content are compared by identity: pointers (a *slog.Logger, a Transport,
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
		{name: "Logger", val: c.Logger},
	}...)
	if r.cert != nil {
		s[3].val = certFingerprint(r.cert.Raw)
	}
	s.flatten("PerCallPolicies", reflect.ValueOf(c.PerCallPolicies))
	s.flatten("PerRetryPolicies", reflect.ValueOf(c.PerRetryPolicies))
	s.flatten("Diagnostics", reflect.ValueOf(c.Diagnostics))
	s.flatten("Session", reflect.ValueOf(c.Session))
	ro := c.Retry
	ro.PreferredRegions, ro.ExcludedRegions = nil, nil // refused by resolve unless empty
	s.flatten("Retry", reflect.ValueOf(ro))
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

// diff names the settings of o that differ from s (the open client's), with both values where they
// may be printed, for ErrConfigConflict; "" when they agree. A slice or map is named once, not
// element by element; a value that is set in one config and absent from the other (a nil
// ClientOptions) is named by its top-level field.
func (s settings) diff(o settings) string {
	mine := make(map[string]setting, len(s))
	for _, x := range s {
		mine[x.name] = x
	}
	theirs := make(map[string]bool, len(o))
	var out []string
	seen := map[string]bool{}
	note := func(root, text string) {
		if !seen[root] {
			seen[root] = true
			out = append(out, text)
		}
	}
	differs := func(root string) string { return root + " differs from the open client's" }
	for _, x := range o {
		theirs[x.name] = true
		y, ok := mine[x.name]
		switch {
		case !ok:
			note(missing(x.name), differs(missing(x.name)))
		case !equalSetting(x.val, y.val):
			root := collection(x.name)
			if root == x.name && x.show && y.show {
				note(root, fmt.Sprintf("%s %v differs from the open client's %v", x.name, printable(x.val), printable(y.val)))
			} else {
				note(root, differs(root))
			}
		}
	}
	for _, y := range s {
		if !theirs[y.name] {
			note(missing(y.name), differs(missing(y.name)))
		}
	}
	return strings.Join(out, "; ")
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

func printable(v any) string {
	if s, ok := v.(string); ok {
		return "[" + s + "]"
	}
	return fmt.Sprint(v)
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
