package cosmostest_test

import (
	"bytes"
	"context"
	"io"
	"log"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// lockedBuffer is a bytes.Buffer safe for the writes of several goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// captureStdLog sends the standard logger's output (where net/http writes without an ErrorLog:
// stderr) to a buffer for the rest of the test.
func captureStdLog(t *testing.T) *lockedBuffer {
	t.Helper()
	buf := &lockedBuffer{}
	prev := log.Writer()
	log.SetOutput(buf)
	t.Cleanup(func() { log.SetOutput(prev) })
	return buf
}

// recordingHandler keeps every record it is given.
type recordingHandler struct {
	mu      sync.Mutex
	records []slog.Record
}

func (h *recordingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordingHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r.Clone())
	return nil
}
func (h *recordingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *recordingHandler) WithGroup(string) slog.Handler      { return h }

// find returns the first record one of whose attributes contains s.
func (h *recordingHandler) find(s string) (slog.Record, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.records {
		found := false
		r.Attrs(func(a slog.Attr) bool {
			found = strings.Contains(a.Value.String(), s)
			return !found
		})
		if found {
			return r, true
		}
	}
	return slog.Record{}, false
}

// failHandshake opens a connection to the server's TLS port, sends bytes that are not a TLS
// handshake and reads until the server closes it, which it does after logging the handshake
// error. It returns the connection's local address, which the log line names.
func failHandshake(t *testing.T, s *cosmostest.Server) string {
	t.Helper()
	u, err := url.Parse(s.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write([]byte{0, 0, 0, 0, 0, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, conn) // until the server closes: its log line is written by then
	return conn.LocalAddr().String()
}

// TestServerErrorsGoToTheLogger: net/http's own errors (a client that closes before its TLS
// handshake: "http: TLS handshake error from ...") never reach stderr; with WithLogger they are
// debug records of the server's logger, without it they are dropped.
func TestServerErrorsGoToTheLogger(t *testing.T) {
	std := captureStdLog(t)

	h := &recordingHandler{}
	logged := cosmostest.NewServer(t, cosmostest.WithLogger(slog.New(h)))
	from := failHandshake(t, logged)
	r, ok := h.find("TLS handshake error from " + from)
	if !ok {
		t.Errorf("no record of the failed handshake from %s in the server's logger", from)
	} else if r.Level != slog.LevelDebug {
		t.Errorf("the handshake error is logged at %v, want %v", r.Level, slog.LevelDebug)
	}

	quiet := cosmostest.NewServer(t)
	from2 := failHandshake(t, quiet)

	for _, addr := range []string{from, from2} {
		if out := std.String(); strings.Contains(out, addr) {
			t.Errorf("the handshake error from %s reached the standard logger (stderr): %q", addr, out)
		}
	}
}
