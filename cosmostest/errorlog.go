package cosmostest

import (
	"io"
	"log"
	"log/slog"
	"strings"
)

// serverErrorLog is the ErrorLog of the server's http.Servers. Without it net/http writes to the
// standard logger, that is stderr: "http: TLS handshake error from 127.0.0.1:…: EOF" each time a
// client closes a connection before its TLS handshake (a probe, a client giving up, a health
// check), noise in every test's output. Its lines go to the server's logger (WithLogger) instead:
// TLS handshake errors at debug level, a handler's panic at error level, the rest at info; without
// a logger they are dropped.
func (srv *server) serverErrorLog() *log.Logger {
	if srv.cfg.logger == nil {
		return log.New(io.Discard, "", 0)
	}
	return log.New(errorLogWriter{srv}, "", 0)
}

// errorLogWriter turns each line net/http logs into a record of the server's logger.
type errorLogWriter struct{ srv *server }

func (w errorLogWriter) Write(p []byte) (int, error) {
	msg := strings.TrimSuffix(string(p), "\n")
	level := slog.LevelInfo
	switch {
	case strings.Contains(msg, "TLS handshake error"):
		level = slog.LevelDebug
	case strings.Contains(msg, "panic serving"):
		level = slog.LevelError
	}
	w.srv.logf(level, "http server", "error", msg)
	return len(p), nil
}
