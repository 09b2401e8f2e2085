// Package jsonfields names the top-level JSON properties of a Go struct type as encoding/json
// writes them, for the packages that project a query onto a user's type (repository's Select of T,
// vector's hits of T).
package jsonfields

import (
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// identifier is a property name a query can name as c.<name> without quoting.
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

var cache sync.Map // reflect.Type -> []string

// Of returns the top-level JSON property names of struct type t (through pointers; embedded
// structs without a name flattened; `json:"-"` and unexported fields skipped), each once, in field
// order. Names that are not plain identifiers are left out. The result is cached per type and
// shared: callers must not change it.
func Of(t reflect.Type) []string {
	if v, ok := cache.Load(t); ok {
		return v.([]string)
	}
	var out []string
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" {
				walk(f.Type)
				continue
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if identifier.MatchString(name) && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	walk(t)
	cache.Store(t, out)
	return out
}
