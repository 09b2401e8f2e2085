package query

import (
	"fmt"
	"math"
	"strings"
	"time"
)

const ticksPerSecond = 10_000_000

// formatDateTime renders t as the service does: YYYY-MM-DDThh:mm:ss.fffffffZ.
func formatDateTime(t time.Time) string {
	t = t.UTC()
	return fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d.%07dZ", t.Year(), t.Month(), t.Day(),
		t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/100)
}

// parseDateTime reads a date-time string in the forms the service accepts (see IS_DATETIME):
// YYYY-MM-DD, optionally followed by Z, or by a space or T and hh:mm:ss with up to seven fractional
// digits and an optional Z. The time is UTC. ok is false for anything else.
func parseDateTime(v any) (time.Time, bool) {
	s, ok := v.(string)
	if !ok || len(s) < 10 {
		return time.Time{}, false
	}
	digits := func(part string) (int, bool) {
		n := 0
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return 0, false
			}
			n = n*10 + int(part[i]-'0')
		}
		return n, true
	}
	y, ok1 := digits(s[0:4])
	mo, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 || s[4] != '-' || s[7] != '-' {
		return time.Time{}, false
	}
	rest := s[10:]
	var h, mi, sec, frac int
	switch {
	case rest == "" || rest == "Z":
	case rest[0] == 'T' || rest[0] == ' ':
		rest = strings.TrimSuffix(rest[1:], "Z")
		if len(rest) < 8 || rest[2] != ':' || rest[5] != ':' {
			return time.Time{}, false
		}
		var ok4, ok5, ok6 bool
		h, ok4 = digits(rest[0:2])
		mi, ok5 = digits(rest[3:5])
		sec, ok6 = digits(rest[6:8])
		if !ok4 || !ok5 || !ok6 {
			return time.Time{}, false
		}
		if f := rest[8:]; f != "" {
			if f[0] != '.' || len(f) < 2 || len(f) > 8 {
				return time.Time{}, false
			}
			n, ok := digits(f[1:])
			if !ok {
				return time.Time{}, false
			}
			for i := len(f) - 1; i < 7; i++ {
				n *= 10
			}
			frac = n
		}
	default:
		return time.Time{}, false
	}
	if mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 59 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, frac*100, time.UTC)
	if t.Day() != d {
		return time.Time{}, false
	}
	return t, true
}

// datePart normalizes a DateTimePart name or abbreviation.
func datePart(v any) string {
	s, ok := v.(string)
	if !ok {
		return ""
	}
	switch strings.ToLower(s) {
	case "year", "yyyy", "yy":
		return "year"
	case "month", "mm", "m":
		return "month"
	case "day", "dd", "d":
		return "day"
	case "hour", "hh":
		return "hour"
	case "minute", "mi", "n":
		return "minute"
	case "second", "ss", "s":
		return "second"
	case "millisecond", "ms":
		return "millisecond"
	case "microsecond", "mcs":
		return "microsecond"
	case "nanosecond", "ns":
		return "nanosecond"
	}
	return ""
}

var partDuration = map[string]time.Duration{
	"day": 24 * time.Hour, "hour": time.Hour, "minute": time.Minute, "second": time.Second,
	"millisecond": time.Millisecond, "microsecond": time.Microsecond, "nanosecond": time.Nanosecond,
}

func ticks(t time.Time) float64 {
	return float64(t.Unix())*ticksPerSecond + float64(t.Nanosecond()/100)
}

func fromTicks(n float64) (time.Time, bool) {
	if math.IsNaN(n) || math.Abs(n) > 2.5e18 {
		return time.Time{}, false
	}
	i := int64(n)
	return time.Unix(i/ticksPerSecond, (i%ticksPerSecond)*100).UTC(), true
}

func init() {
	register("GETCURRENTDATETIME", 0, 0, func(ev *evaluator, _ []any) any { return formatDateTime(ev.now) })
	register("GETCURRENTDATETIMESTATIC", 0, 0, func(ev *evaluator, _ []any) any { return formatDateTime(ev.now) })
	register("GETCURRENTTIMESTAMP", 0, 0, func(ev *evaluator, _ []any) any { return float64(ev.now.UnixMilli()) })
	register("GETCURRENTTIMESTAMPSTATIC", 0, 0, func(ev *evaluator, _ []any) any { return float64(ev.now.UnixMilli()) })
	register("GETCURRENTTICKS", 0, 0, func(ev *evaluator, _ []any) any { return ticks(ev.now) })
	register("GETCURRENTTICKSSTATIC", 0, 0, func(ev *evaluator, _ []any) any { return ticks(ev.now) })
	register("DATETIMEADD", 3, 3, func(_ *evaluator, a []any) any {
		part := datePart(a[0])
		n, ok1 := argInt64(a, 1)
		t, ok2 := parseDateTime(a[2])
		if part == "" || !ok1 || !ok2 {
			return undefined
		}
		switch part {
		case "year", "month":
			if part == "year" {
				n *= 12
			}
			y, m, d := t.Date()
			first := time.Date(y, m, 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC).AddDate(0, int(n), 0)
			last := first.AddDate(0, 1, -1).Day()
			t = first.AddDate(0, 0, min(d, last)-1)
		default:
			if part == "nanosecond" {
				n = n / 100 * 100
			}
			t = t.Add(time.Duration(n) * partDuration[part])
		}
		return formatDateTime(t)
	})
	register("IS_DATETIME", 1, 1, func(_ *evaluator, a []any) any {
		_, ok := parseDateTime(a[0])
		return ok
	})
	register("DATETIMEBIN", 2, 4, func(_ *evaluator, a []any) any {
		t, ok := parseDateTime(a[0])
		part := datePart(a[1])
		unit, known := partDuration[part]
		if !ok || !known {
			return undefined
		}
		size := int64(1)
		if len(a) >= 3 {
			n, ok := argInt64(a, 2)
			if !ok || n <= 0 {
				return undefined
			}
			size = n
		}
		origin := time.Unix(0, 0).UTC()
		if len(a) == 4 {
			if origin, ok = parseDateTime(a[3]); !ok {
				return undefined
			}
		}
		width := float64(size) * float64(unit/100) // in ticks
		d := ticks(t) - ticks(origin)
		start, ok := fromTicks(ticks(origin) + math.Floor(d/width)*width)
		if !ok {
			return undefined
		}
		return formatDateTime(start)
	})
	register("DATETIMEPART", 2, 2, func(_ *evaluator, a []any) any {
		part := datePart(a[0])
		t, ok := parseDateTime(a[1])
		if part == "" || !ok {
			return undefined
		}
		switch part {
		case "year":
			return float64(t.Year())
		case "month":
			return float64(t.Month())
		case "day":
			return float64(t.Day())
		case "hour":
			return float64(t.Hour())
		case "minute":
			return float64(t.Minute())
		case "second":
			return float64(t.Second())
		case "millisecond":
			return float64(t.Nanosecond() / 1e6)
		case "microsecond":
			return float64(t.Nanosecond() / 1e3)
		}
		return float64(t.Nanosecond() / 100 * 100)
	})
	register("DATETIMEDIFF", 3, 3, func(_ *evaluator, a []any) any {
		part := datePart(a[0])
		s, ok1 := parseDateTime(a[1])
		e, ok2 := parseDateTime(a[2])
		if part == "" || !ok1 || !ok2 {
			return undefined
		}
		switch part {
		case "year":
			return float64(e.Year() - s.Year())
		case "month":
			return float64((e.Year()-s.Year())*12 + int(e.Month()) - int(s.Month()))
		}
		unit := float64(partDuration[part] / 100)
		if part == "nanosecond" {
			return (ticks(e) - ticks(s)) * 100
		}
		return math.Floor(ticks(e)/unit) - math.Floor(ticks(s)/unit)
	})
	register("DATETIMEFROMPARTS", 3, 7, func(_ *evaluator, a []any) any {
		var p [7]int
		lim := [7][2]int{{1, 9999}, {1, 12}, {1, 31}, {0, 23}, {0, 59}, {0, 59}, {0, 9999999}}
		for i := range a {
			v, ok := argInt(a, i)
			if !ok || v < lim[i][0] || v > lim[i][1] {
				return undefined
			}
			p[i] = v
		}
		t := time.Date(p[0], time.Month(p[1]), p[2], p[3], p[4], p[5], p[6]*100, time.UTC)
		if t.Day() != p[2] {
			return undefined
		}
		return formatDateTime(t)
	})
	register("DATETIMETOTIMESTAMP", 1, 1, func(_ *evaluator, a []any) any {
		t, ok := parseDateTime(a[0])
		if !ok {
			return undefined
		}
		return float64(t.UnixMilli())
	})
	register("DATETIMETOTICKS", 1, 1, func(_ *evaluator, a []any) any {
		t, ok := parseDateTime(a[0])
		if !ok {
			return undefined
		}
		return ticks(t)
	})
	register("TIMESTAMPTODATETIME", 1, 1, func(_ *evaluator, a []any) any {
		ms, ok := argNum(a, 0)
		if !ok {
			return undefined
		}
		t, ok := fromTicks(math.Trunc(ms) * 10_000)
		if !ok {
			return undefined
		}
		return formatDateTime(t)
	})
	register("TICKSTODATETIME", 1, 1, func(_ *evaluator, a []any) any {
		n, ok := argNum(a, 0)
		if !ok {
			return undefined
		}
		t, ok := fromTicks(math.Trunc(n))
		if !ok {
			return undefined
		}
		return formatDateTime(t)
	})
}
