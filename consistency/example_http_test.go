package consistency_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/cosmoskit/cosmoskit-go/consistency"
)

// sessionCookie is the cookie that carries the orders container's session token between the
// instances of a service behind a load balancer.
const sessionCookie = "orders-session"

// withSession is HTTP middleware: it sends the session token of the request's cookie with the
// handler's Cosmos DB reads (refusing a malformed cookie with 400 before any Cosmos DB call), and
// returns the token of the handler's writes and reads in the cookie, so the client's next request
// reads its own writes on whichever instance and region it lands.
func withSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if c, err := r.Cookie(sessionCookie); err == nil {
			if ctx, err = consistency.WithSessionToken(ctx, "shop", "orders", c.Value); err != nil {
				http.Error(w, "bad session cookie", http.StatusBadRequest)
				return
			}
		}
		ctx, s := consistency.Capture(ctx)
		next.ServeHTTP(&sessionWriter{ResponseWriter: w, s: s}, r.WithContext(ctx))
	})
}

// sessionWriter sets the cookie just before the response header goes out.
type sessionWriter struct {
	http.ResponseWriter
	s    *consistency.Session
	done bool
}

func (w *sessionWriter) WriteHeader(code int) {
	if !w.done {
		w.done = true
		if tok := w.s.Token("shop", "orders"); tok != "" {
			http.SetCookie(w.ResponseWriter, &http.Cookie{Name: sessionCookie, Value: tok, Path: "/", HttpOnly: true, Secure: true, SameSite: http.SameSiteLaxMode})
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *sessionWriter) Write(b []byte) (int, error) {
	if !w.done {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// A cookie helper for the session-token hand-off (see withSession).
func Example_cookie() {
	h := withSession(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// orders.Get(r.Context(), ...) here sends the cookie's token; orders.Create(r.Context(),
		// ...) is recorded and goes back in the cookie.
		_, _ = fmt.Fprintln(w, "ok")
	}))
	for _, cookie := range []string{"0:-1#42", "<script>"} {
		req := httptest.NewRequest(http.MethodGet, "/orders/o1", nil)
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Println(rec.Code)
	}
	// Output:
	// 200
	// 400
}
