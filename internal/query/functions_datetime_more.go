package query

import (
	"strconv"
	"strings"
	"time"
)

// The date and time functions of the reference's newer pages: DAY, MONTH, YEAR, NOW, AGO and
// DATETIMEFORMAT (https://learn.microsoft.com/azure/cosmos-db/nosql/query/system-functions).
func init() {
	component := func(name string, f func(time.Time) int) {
		register(name, 1, 1, func(_ *evaluator, a []any) any {
			t, ok := parseDateTime(a[0])
			if !ok {
				return undefined
			}
			return float64(f(t))
		})
	}
	component("DAY", func(t time.Time) int { return t.Day() })
	component("MONTH", func(t time.Time) int { return int(t.Month()) })
	component("YEAR", func(t time.Time) int { return t.Year() })
	// NOW is the current UTC date and time, as GETCURRENTDATETIME.
	register("NOW", 0, 0, func(ev *evaluator, _ []any) any { return formatDateTime(ev.now) })
	// AGO(part, n) is the current UTC date and time minus n parts (DATETIMEADD(part, -n, NOW())).
	register("AGO", 2, 2, func(ev *evaluator, a []any) any {
		n, ok := argInt64(a, 1)
		if !ok {
			return undefined
		}
		return builtins["DATETIMEADD"].call(ev, []any{a[0], float64(-n), formatDateTime(ev.now)})
	})
	register("DATETIMEFORMAT", 2, 2, func(_ *evaluator, a []any) any {
		t, ok := parseDateTime(a[0])
		f, ok2 := argStr(a, 1)
		if !ok || !ok2 {
			return undefined
		}
		return formatCustom(t, f)
	})
}

// formatCustom renders t with a .NET-style custom date and time format, the form the
// DATETIMEFORMAT page documents ("yyyy-MM-dd [HH:mm:ss]", "To\\da\\y i\\s: yyyy-MM-ddTHH:mm:ss.fff"):
// y (year, 1 to 5 letters), M (month; MMM and MMMM its English name), d (day; ddd and dddd the
// weekday's name), H and h (24- and 12-hour), m, s, f (1 to 7 fraction digits), F (the same without
// trailing zeros), t and tt (A/AM, P/PM); \x writes x, '...' and "..." write their text; any
// other character is written as it is. Unsure: the service's full list of specifiers is not on
// the page; this is the documented subset plus .NET's meaning of the others.
func formatCustom(t time.Time, f string) string {
	var b strings.Builder
	pad := func(n, width int) {
		s := strconv.Itoa(n)
		for i := len(s); i < width; i++ {
			b.WriteByte('0')
		}
		b.WriteString(s)
	}
	rs := []rune(f)
	for i := 0; i < len(rs); {
		c := rs[i]
		n := 1
		for i+n < len(rs) && rs[i+n] == c && c != '\\' && c != '\'' && c != '"' {
			n++
		}
		switch c {
		case 'y':
			if y := t.Year(); n <= 2 {
				pad(y%100, n)
			} else {
				pad(y, n)
			}
		case 'M':
			switch {
			case n >= 4:
				b.WriteString(t.Month().String())
			case n == 3:
				b.WriteString(t.Month().String()[:3])
			default:
				pad(int(t.Month()), n)
			}
		case 'd':
			switch {
			case n >= 4:
				b.WriteString(t.Weekday().String())
			case n == 3:
				b.WriteString(t.Weekday().String()[:3])
			default:
				pad(t.Day(), n)
			}
		case 'H':
			pad(t.Hour(), min(n, 2))
		case 'h':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			pad(h, min(n, 2))
		case 'm':
			pad(t.Minute(), min(n, 2))
		case 's':
			pad(t.Second(), min(n, 2))
		case 'f', 'F':
			digits := strconv.Itoa(t.Nanosecond()/100 + 10_000_000)[1:] // seven digits
			d := digits[:min(n, 7)]
			if c == 'F' {
				d = strings.TrimRight(d, "0")
			}
			b.WriteString(d)
		case 't':
			ampm := "AM"
			if t.Hour() >= 12 {
				ampm = "PM"
			}
			b.WriteString(ampm[:min(n, 2)])
		case '\\':
			if i+1 < len(rs) {
				b.WriteRune(rs[i+1])
				n = 2
			}
		case '\'', '"':
			j := i + 1
			for j < len(rs) && rs[j] != c {
				b.WriteRune(rs[j])
				j++
			}
			n = j - i + 1
		default:
			for k := 0; k < n; k++ {
				b.WriteRune(c)
			}
		}
		i += n
	}
	return b.String()
}
