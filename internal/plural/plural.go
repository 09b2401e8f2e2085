// Package plural writes counts in messages: "1 level", "2 levels", never "1 levels".
package plural

import "strconv"

// Count returns n followed by one when n is 1 (or -1), by many otherwise: Count(1, "value",
// "values") is "1 value", Count(3, "value", "values") is "3 values".
func Count(n int, one, many string) string {
	if n == 1 || n == -1 {
		return strconv.Itoa(n) + " " + one
	}
	return strconv.Itoa(n) + " " + many
}
