package query

import (
	"math"
	"strings"
)

func init() {
	// VectorDistance is dispatched by the evaluator (it needs the path of its first argument); the
	// registration gives the parser its arity.
	register("VECTORDISTANCE", 2, 4, func(_ *evaluator, _ []any) any { return undefined })
}

// vectorPath returns the embedding path of a property expression: c.a.b -> "/a/b", or "".
func vectorPath(x expr) string { return propertyPath(x, false) }

// vectorFunction returns the distance function a VectorDistance call uses when its options argument
// is a literal or absent: the literal's distanceFunction, else the embedding policy's, else cosine.
func vectorFunction(c *callExpr, vec VectorDefaults) string {
	if len(c.args) == 4 {
		if o, ok := c.args[3].(objectExpr); ok {
			for i, k := range o.keys {
				if l, ok := o.vals[i].(litExpr); ok && k == "distanceFunction" {
					if s, ok := l.v.(string); ok {
						return strings.ToLower(s)
					}
				}
			}
		}
	}
	for _, a := range c.args[:2] {
		if spec, ok := vec.ByPath[vectorPath(a)]; ok && spec.DistanceFunction != "" {
			return strings.ToLower(spec.DistanceFunction)
		}
	}
	return "cosine"
}

// vectorDistance computes VectorDistance: the cosine similarity, the dot product or the Euclidean
// distance of two numeric arrays, with the distance function taken from the options argument or else
// from the container's vector embedding policy for the first argument's path (cosine by default).
func (ev *evaluator) vectorDistance(n *callExpr, args []any) any {
	a, ok1 := args[0].([]any)
	b, ok2 := args[1].([]any)
	if !ok1 || !ok2 || len(a) != len(b) || len(a) == 0 {
		return undefined
	}
	fn := "cosine"
	if spec, ok := ev.vector.ByPath[vectorPath(n.args[0])]; ok && spec.DistanceFunction != "" {
		fn = strings.ToLower(spec.DistanceFunction)
	} else if spec, ok := ev.vector.ByPath[vectorPath(n.args[1])]; ok && spec.DistanceFunction != "" {
		fn = strings.ToLower(spec.DistanceFunction)
	}
	if len(args) >= 3 {
		if _, ok := args[2].(bool); !ok {
			ev.fail(badRequest("The third argument of VectorDistance must be a boolean (bruteForce)."))
			return undefined
		}
	}
	if len(args) == 4 {
		opts := asMap(args[3])
		if opts == nil {
			ev.fail(badRequest("The fourth argument of VectorDistance must be an object."))
			return undefined
		}
		if df, ok := opts["distanceFunction"].(string); ok {
			fn = strings.ToLower(df)
		}
		if dt, ok := opts["dataType"].(string); ok {
			switch strings.ToLower(dt) {
			case "float32", "float16", "uint8", "int8":
			default:
				ev.fail(badRequest("Invalid dataType '%s' for VectorDistance.", dt))
				return undefined
			}
		}
	}
	var dot, na, nb, sq float64
	for i := range a {
		x, ok1 := a[i].(float64)
		y, ok2 := b[i].(float64)
		if !ok1 || !ok2 {
			return undefined
		}
		dot += x * y
		na += x * x
		nb += y * y
		sq += (x - y) * (x - y)
	}
	switch fn {
	case "cosine":
		if na == 0 || nb == 0 {
			return undefined
		}
		return num(dot / (math.Sqrt(na) * math.Sqrt(nb)))
	case "dotproduct":
		return num(dot)
	case "euclidean":
		return num(math.Sqrt(sq))
	}
	ev.fail(badRequest("Invalid distanceFunction '%s' for VectorDistance.", fn))
	return undefined
}
