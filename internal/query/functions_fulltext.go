package query

import (
	"strings"
	"unicode"
)

// Full-text predicates. The service tokenizes with its language analyzers (stemming, stop words);
// this engine's tokenization is simpler and documented: a text is split into words at every rune
// that is not a letter or a digit, and words are compared case-insensitively (Unicode lower case).
// A search term is tokenized the same way and matches when its words appear consecutively in the
// text (a one-word term: the word appears). There is no stemming: "boots" does not match "boot".
func init() {
	register("FULLTEXTCONTAINS", 2, 2, func(_ *evaluator, a []any) any {
		return fullTextMatch(a, func(n, hit int) bool { return hit == 1 })
	})
	register("FULLTEXTCONTAINSALL", 2, -1, func(_ *evaluator, a []any) any {
		return fullTextMatch(a, func(n, hit int) bool { return hit == n })
	})
	register("FULLTEXTCONTAINSANY", 2, -1, func(_ *evaluator, a []any) any {
		return fullTextMatch(a, func(n, hit int) bool { return hit > 0 })
	})
}

// fullTextMatch counts the terms a[1:] found in the text a[0]; a text that is not a string is
// false, a term that is not a string undefined.
func fullTextMatch(a []any, ok func(n, hit int) bool) any {
	terms := make([][]string, 0, len(a)-1)
	for i := 1; i < len(a); i++ {
		s, isStr := a[i].(string)
		if !isStr {
			return undefined
		}
		terms = append(terms, fullTextWords(s))
	}
	text, isStr := a[0].(string)
	if !isStr {
		return false
	}
	words := fullTextWords(text)
	hit := 0
	for _, t := range terms {
		if len(t) > 0 && containsRun(words, t) {
			hit++
		}
	}
	return ok(len(terms), hit)
}

// fullTextWords is the tokenization of the full-text functions.
func fullTextWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// containsRun reports whether run appears consecutively in words.
func containsRun(words, run []string) bool {
	for i := 0; i+len(run) <= len(words); i++ {
		match := true
		for j, w := range run {
			if words[i+j] != w {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}
