package query

import (
	"errors"
	"testing"
)

// FuzzContinuationToken feeds arbitrary continuation tokens to queries of every paging kind
// (streaming, JOIN, ORDER BY, TOP, aggregate): a token that is not one the engine issued for that
// query is a BadRequest *Error, never a panic or a silent restart from the first page.
func FuzzContinuationToken(f *testing.F) {
	all, _ := loadTable(f)
	docs := partitionDocs(all, nil)
	queries := []string{
		"SELECT * FROM c",
		"SELECT c.id, t AS tag FROM c JOIN t IN c.tags",
		"SELECT * FROM c ORDER BY c.id DESC",
		"SELECT TOP 5 c.id FROM c",
		"SELECT COUNT(1) AS n FROM c GROUP BY c.pk",
		"SELECT DISTINCT VALUE c.pk FROM c",
		"SELECT * FROM c OFFSET 1 LIMIT 3",
	}
	// Seed with genuine tokens of each query, and mangled ones.
	for i, text := range queries {
		q, err := Parse(text)
		if err != nil {
			f.Fatal(err)
		}
		page, err := q.Execute(docs, Options{MaxItemCount: 1})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), page.Continuation)
		if n := len(page.Continuation); n > 2 {
			f.Add(uint8(i), page.Continuation[:n/2])
			f.Add(uint8(i), page.Continuation[1:])
		}
	}
	recoverPanics = false // a panic must fail the fuzzer, not turn into an error
	f.Cleanup(func() { recoverPanics = true })
	f.Add(uint8(0), "")
	f.Add(uint8(1), "{}")
	f.Add(uint8(2), `{"token":"+RID:~abc#RT:1","range":{"min":"","max":"FF"}}`)
	f.Fuzz(func(t *testing.T, which uint8, token string) {
		text := queries[int(which)%len(queries)]
		q, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		_, err = q.Execute(docs, Options{MaxItemCount: 2, Continuation: token})
		if err == nil {
			return
		}
		var qe *Error
		if !errors.As(err, &qe) || qe.Code != "BadRequest" || qe.Message == "" {
			t.Fatalf("Execute(%q, token %q): error %v is not a BadRequest *Error", text, token, err)
		}
	})
}
