package query

import "sort"

func init() {
	register("ARRAY_CONTAINS", 2, 3, func(_ *evaluator, a []any) any {
		arr, ok := a[0].([]any)
		if !ok {
			return undefined
		}
		partial := false
		if len(a) == 3 {
			if partial, ok = argBool(a, 2); !ok {
				return undefined
			}
		}
		return arrayHas(arr, a[1], partial)
	})
	// ARRAY_CONTAINS_ANY and ARRAY_CONTAINS_ALL are ORs and ANDs of ARRAY_CONTAINS with the
	// three-valued logic of undefined, as documented: ANY([1, 2, 3, 4], 1, undefined) is true,
	// ANY([1, 2, 3, 4], 5, undefined) undefined; ALL([1, 2, 3, 4], 1, undefined) undefined,
	// ALL([1, 2, 3, 4], 5, undefined) false.
	register("ARRAY_CONTAINS_ANY", 2, -1, func(_ *evaluator, a []any) any {
		arr, ok := a[0].([]any)
		if !ok {
			return undefined
		}
		return anyOf(a[1:], func(v any) bool { return arrayHas(arr, v, false) })
	})
	register("ARRAY_CONTAINS_ALL", 2, -1, func(_ *evaluator, a []any) any {
		arr, ok := a[0].([]any)
		if !ok {
			return undefined
		}
		return allOf(a[1:], func(v any) bool { return arrayHas(arr, v, false) })
	})
	// _TRY_ARRAY_CONTAINS is the service's internal form of ARRAY_CONTAINS (the .NET SDK's query
	// plan baselines narrow its partition key ranges as ARRAY_CONTAINS's): the same answer.
	register("_TRY_ARRAY_CONTAINS", 2, 3, func(ev *evaluator, a []any) any { return builtins["ARRAY_CONTAINS"].call(ev, a) })
	register("ARRAY_LENGTH", 1, 1, func(_ *evaluator, a []any) any {
		arr, ok := a[0].([]any)
		if !ok {
			return undefined
		}
		return float64(len(arr))
	})
	register("ARRAY_SLICE", 2, 3, func(_ *evaluator, a []any) any {
		arr, ok := a[0].([]any)
		start, ok2 := argInt(a, 1)
		if !ok || !ok2 {
			return undefined
		}
		n := len(arr)
		if start < 0 {
			start = max(0, n+start)
		}
		if start > n {
			start = n
		}
		end := n
		if len(a) == 3 {
			l, ok := argInt(a, 2)
			if !ok {
				return undefined
			}
			if l < 0 {
				return []any{}
			}
			end = min(n, start+l)
		}
		return append([]any{}, arr[start:end]...)
	})
	register("ARRAY_CONCAT", 2, -1, func(ev *evaluator, a []any) any {
		n := 0
		for _, v := range a {
			arr, ok := v.([]any)
			if !ok {
				return undefined
			}
			n += len(arr)
		}
		if n > maxArrayLen {
			ev.fail(resourceLimit())
			return undefined
		}
		var out []any
		for _, v := range a {
			out = append(out, v.([]any)...)
		}
		if out == nil {
			out = []any{}
		}
		return out
	})
	register("SETINTERSECT", 2, 2, func(_ *evaluator, a []any) any {
		x, ok1 := a[0].([]any)
		y, ok2 := a[1].([]any)
		if !ok1 || !ok2 {
			return undefined
		}
		// In the second array's order, as documented: SETINTERSECT([1, 2, "A", "B"], ["A", 1])
		// is ["A", 1].
		out := []any{}
		for _, v := range y {
			if arrayHas(x, v, false) && !arrayHas(out, v, false) {
				out = append(out, v)
			}
		}
		return out
	})
	register("SETDIFFERENCE", 2, 2, func(_ *evaluator, a []any) any {
		x, ok1 := a[0].([]any)
		y, ok2 := a[1].([]any)
		if !ok1 || !ok2 {
			return undefined
		}
		out := []any{}
		for _, v := range x {
			if !arrayHas(y, v, false) && !arrayHas(out, v, false) {
				out = append(out, v)
			}
		}
		return out
	})
	register("SETEQUAL", 2, 2, func(_ *evaluator, a []any) any {
		x, ok1 := a[0].([]any)
		y, ok2 := a[1].([]any)
		if !ok1 || !ok2 {
			return undefined
		}
		for _, v := range x {
			if !arrayHas(y, v, false) {
				return false
			}
		}
		for _, v := range y {
			if !arrayHas(x, v, false) {
				return false
			}
		}
		return true
	})
	register("SETUNION", 2, 2, func(_ *evaluator, a []any) any {
		x, ok1 := a[0].([]any)
		y, ok2 := a[1].([]any)
		if !ok1 || !ok2 {
			return undefined
		}
		out := []any{}
		for _, arr := range [][]any{x, y} {
			for _, v := range arr {
				if !arrayHas(out, v, false) {
					out = append(out, v)
				}
			}
		}
		return out
	})
}

// anyOf is OR over test(v) for each v, an undefined v counting as undefined: true if a test holds,
// else undefined if a v is undefined, else false.
func anyOf(vs []any, test func(any) bool) any {
	undef := false
	for _, v := range vs {
		if isUndef(v) {
			undef = true
		} else if test(v) {
			return true
		}
	}
	if undef {
		return undefined
	}
	return false
}

// allOf is AND over test(v) for each v, an undefined v counting as undefined: false if a test
// fails, else undefined if a v is undefined, else true.
func allOf(vs []any, test func(any) bool) any {
	undef := false
	for _, v := range vs {
		if isUndef(v) {
			undef = true
		} else if !test(v) {
			return false
		}
	}
	if undef {
		return undefined
	}
	return true
}

// arrayHas reports whether arr holds v; with partial, an object v matches any object element that has
// all of v's properties with equal values.
func arrayHas(arr []any, v any, partial bool) bool {
	if isUndef(v) {
		return false
	}
	pm := asMap(v)
	for _, e := range arr {
		if partial && pm != nil {
			em := asMap(e)
			if em == nil {
				continue
			}
			all := true
			for k, pv := range pm {
				ev, ok := em[k]
				if !ok || !deepEqual(ev, pv) {
					all = false
					break
				}
			}
			if all {
				return true
			}
			continue
		}
		if deepEqual(e, v) {
			return true
		}
	}
	return false
}

func init() {
	arrayExtreme := func(name string, want int) {
		register(name, 1, 1, func(_ *evaluator, a []any) any {
			arr, ok := a[0].([]any)
			if !ok {
				return undefined
			}
			best := undefined
			for _, v := range arr {
				switch v.(type) {
				case undefinedT:
					continue
				case []any, map[string]any:
					return undefined
				}
				if isUndef(best) || compareOrder(v, best) == want {
					best = v
				}
			}
			return best
		})
	}
	arraySum := func(name string, avg bool) {
		register(name, 1, 1, func(_ *evaluator, a []any) any {
			arr, ok := a[0].([]any)
			if !ok {
				return undefined
			}
			sum, n := 0.0, 0
			for _, v := range arr {
				switch x := v.(type) {
				case undefinedT:
				case float64:
					sum += x
					n++
				default:
					return undefined
				}
			}
			if avg {
				if n == 0 {
					return undefined
				}
				return sum / float64(n)
			}
			return sum
		})
	}
	// ARRAY_MEDIAN: the median of the numbers, undefined elements ignored; undefined when an
	// element is not a number (documented: "the elements can only be numbers") or none is left.
	register("ARRAY_MEDIAN", 1, 1, func(_ *evaluator, a []any) any {
		arr, ok := a[0].([]any)
		if !ok {
			return undefined
		}
		var nums []float64
		for _, v := range arr {
			switch x := v.(type) {
			case undefinedT:
			case float64:
				nums = append(nums, x)
			default:
				return undefined
			}
		}
		if len(nums) == 0 {
			return undefined
		}
		sort.Float64s(nums)
		m := len(nums) / 2
		if len(nums)%2 == 1 {
			return nums[m]
		}
		return (nums[m-1] + nums[m]) / 2
	})
	arraySum("ARRAY_SUM", false)
	arraySum("ARRAY_AVG", true)
	arrayExtreme("ARRAY_MIN", -1)
	arrayExtreme("ARRAY_MAX", 1)
	register("OBJECTTOARRAY", 1, 3, func(_ *evaluator, a []any) any {
		var keys []string
		var vals []any
		switch m := a[0].(type) {
		case *record: // a document's object or a literal: its own order
			r := plain(m).(*record)
			keys, vals = r.keys, r.vals
		case map[string]any: // a parameter: no order of its own, by name
			keys = make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				vals = append(vals, m[k])
			}
		default:
			return undefined
		}
		kName, vName := "k", "v"
		if len(a) >= 2 {
			s, ok := argStr(a, 1)
			if !ok {
				return undefined
			}
			kName = s
		}
		if len(a) == 3 {
			s, ok := argStr(a, 2)
			if !ok {
				return undefined
			}
			vName = s
		}
		out := make([]any, len(keys))
		for i, k := range keys {
			if kName == vName { // one property, the value written last
				out[i] = newRecord([]string{kName}, []any{vals[i]})
				continue
			}
			out[i] = newRecord([]string{kName, vName}, []any{k, vals[i]})
		}
		return out
	})
	register("IIF", 3, 3, func(_ *evaluator, a []any) any {
		if b, ok := a[0].(bool); ok && b {
			return a[1]
		}
		return a[2]
	})
	register("CHOOSE", 2, -1, func(_ *evaluator, a []any) any {
		i, ok := argInt(a, 0)
		if !ok || i < 1 || i >= len(a) {
			return undefined
		}
		return a[i]
	})
}
