package wire

import (
	"encoding/base64"
	"net/url"
	"testing"
)

// TestSignDocumentedExample checks the signature against the worked example of the REST API's
// access control page (GET dbs/ToDoList).
func TestSignDocumentedExample(t *testing.T) {
	key, err := base64.StdEncoding.DecodeString("dsZQi3KtZmCv1ljt3VNWNm7sQUF1y5rJfC6kv5JiwvW0EndXdDku/dkKBp8/ufDToSxLzR4y+O/0H/t4bQtVNw==")
	if err != nil {
		t.Fatal(err)
	}
	const date = "Thu, 27 Apr 2017 00:51:12 GMT"
	if got, want := StringToSign("GET", "dbs", "dbs/ToDoList", date), "get\ndbs\ndbs/ToDoList\nthu, 27 apr 2017 00:51:12 gmt\n\n"; got != want {
		t.Fatalf("StringToSign = %q, want %q", got, want)
	}
	if got, want := Sign(key, "GET", "dbs", "dbs/ToDoList", date), "c09PEVJrgp2uQRkr934kFbTqhByc7TVr3OHyqlu+c+c="; got != want {
		t.Fatalf("Sign = %q, want %q", got, want)
	}
	h := MasterKeyAuthorization(key, "GET", "dbs", "dbs/ToDoList", date)
	if dec, _ := url.QueryUnescape(h); dec != AuthMasterPrefix+"c09PEVJrgp2uQRkr934kFbTqhByc7TVr3OHyqlu+c+c=" {
		t.Fatalf("MasterKeyAuthorization decodes to %q", dec)
	}
	// The link keeps its case; verb, type and date do not matter in case.
	if Sign(key, "get", "DBS", "dbs/ToDoList", date) != Sign(key, "GET", "dbs", "dbs/ToDoList", "THU, 27 APR 2017 00:51:12 GMT") {
		t.Fatal("verb, resource type and date must be case-insensitive")
	}
	if Sign(key, "GET", "dbs", "dbs/todolist", date) == Sign(key, "GET", "dbs", "dbs/ToDoList", date) {
		t.Fatal("the resource link must be case-sensitive")
	}
	if got := AADAuthorization("a.b.c"); got != "type=aad&ver=1.0&sig=a.b.c" {
		t.Fatalf("AADAuthorization = %q", got)
	}
}
