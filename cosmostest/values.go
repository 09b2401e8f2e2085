package cosmostest

import "reflect"

type undefinedT struct{}

// undefinedValue is a missing property (distinct from JSON null).
var undefinedValue = undefinedT{}

func jsonEqual(a, b any) bool {
	switch a.(type) {
	case float64, string, bool, nil:
		return a == b
	}
	return reflect.DeepEqual(a, b)
}
