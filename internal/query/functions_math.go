package query

import (
	"math"
	"math/rand/v2"
)

func init() {
	unaryMath := func(name string, f func(float64) float64) {
		register(name, 1, 1, func(_ *evaluator, a []any) any {
			x, ok := argNum(a, 0)
			if !ok {
				return undefined
			}
			return num(f(x))
		})
	}
	unaryMath("ABS", math.Abs)
	unaryMath("CEILING", math.Ceil)
	unaryMath("FLOOR", math.Floor)
	unaryMath("TRUNC", math.Trunc)
	unaryMath("SQRT", math.Sqrt)
	unaryMath("SQUARE", func(x float64) float64 { return x * x })
	unaryMath("EXP", math.Exp)
	unaryMath("LOG10", math.Log10)
	unaryMath("SIGN", func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return 0
	})
	unaryMath("SIN", math.Sin)
	unaryMath("COS", math.Cos)
	unaryMath("TAN", math.Tan)
	unaryMath("ASIN", math.Asin)
	unaryMath("ACOS", math.Acos)
	unaryMath("ATAN", math.Atan)
	unaryMath("COT", func(x float64) float64 { return 1 / math.Tan(x) })
	unaryMath("DEGREES", func(x float64) float64 { return x * 180 / math.Pi })
	unaryMath("RADIANS", func(x float64) float64 { return x * math.Pi / 180 })
	register("ROUND", 1, 2, func(_ *evaluator, a []any) any {
		x, ok := argNum(a, 0)
		if !ok {
			return undefined
		}
		if len(a) == 1 {
			return num(math.Round(x))
		}
		p, ok := argInt(a, 1)
		if !ok || p > 15 || p < -15 {
			return undefined
		}
		scale := math.Pow(10, float64(p))
		return num(math.Round(x*scale) / scale)
	})
	register("PI", 0, 0, func(_ *evaluator, _ []any) any { return math.Pi })
	register("RAND", 0, 0, func(_ *evaluator, _ []any) any { return rand.Float64() })
	register("LOG", 1, 2, func(_ *evaluator, a []any) any {
		x, ok := argNum(a, 0)
		if !ok {
			return undefined
		}
		if len(a) == 2 {
			b, ok := argNum(a, 1)
			if !ok {
				return undefined
			}
			return num(math.Log(x) / math.Log(b))
		}
		return num(math.Log(x))
	})
	register("POWER", 2, 2, func(_ *evaluator, a []any) any {
		x, ok1 := argNum(a, 0)
		y, ok2 := argNum(a, 1)
		if !ok1 || !ok2 {
			return undefined
		}
		return num(math.Pow(x, y))
	})
	register("ATN2", 2, 2, func(_ *evaluator, a []any) any {
		x, ok1 := argNum(a, 0)
		y, ok2 := argNum(a, 1)
		if !ok1 || !ok2 {
			return undefined
		}
		// ATN2(a, b) is the arc tangent of a/b (the documented example ATN2(35.175643, 129.44) is 0.2653...).
		return num(math.Atan2(x, y))
	})
	register("NUMBERBIN", 1, 2, func(_ *evaluator, a []any) any {
		x, ok := argNum(a, 0)
		if !ok {
			return undefined
		}
		bin := 1.0
		if len(a) == 2 {
			if bin, ok = argNum(a, 1); !ok || bin == 0 {
				return undefined
			}
		}
		return num(math.Floor(x/bin) * bin)
	})
	intOp := func(name string, f func(x, y int64) (int64, bool)) {
		register(name, 2, 2, func(_ *evaluator, a []any) any {
			x, ok1 := argInt64(a, 0)
			y, ok2 := argInt64(a, 1)
			if !ok1 || !ok2 {
				return undefined
			}
			r, ok := f(x, y)
			if !ok {
				return undefined
			}
			return float64(r)
		})
	}
	intOp("INTADD", func(x, y int64) (int64, bool) { return x + y, true })
	intOp("INTSUB", func(x, y int64) (int64, bool) { return x - y, true })
	intOp("INTMUL", func(x, y int64) (int64, bool) { return x * y, true })
	intOp("INTDIV", func(x, y int64) (int64, bool) { return safeDiv(x, y) })
	intOp("INTMOD", func(x, y int64) (int64, bool) {
		if y == 0 || x == math.MinInt64 && y == -1 {
			return 0, false
		}
		return x % y, true
	})
	intOp("INTBITAND", func(x, y int64) (int64, bool) { return x & y, true })
	intOp("INTBITOR", func(x, y int64) (int64, bool) { return x | y, true })
	intOp("INTBITXOR", func(x, y int64) (int64, bool) { return x ^ y, true })
	intOp("INTBITLEFTSHIFT", func(x, y int64) (int64, bool) { return x << (uint64(y) & 63), true })
	intOp("INTBITRIGHTSHIFT", func(x, y int64) (int64, bool) { return x >> (uint64(y) & 63), true })
	register("INTBITNOT", 1, 1, func(_ *evaluator, a []any) any {
		x, ok := argInt64(a, 0)
		if !ok {
			return undefined
		}
		return float64(^x)
	})
}

func safeDiv(x, y int64) (int64, bool) {
	if y == 0 || x == math.MinInt64 && y == -1 {
		return 0, false
	}
	return x / y, true
}

func argInt64(a []any, i int) (int64, bool) {
	f, ok := argNum(a, i)
	if !ok || f != math.Trunc(f) || math.Abs(f) >= 1<<63 {
		return 0, false
	}
	return int64(f), true
}
