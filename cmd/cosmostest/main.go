// Command cosmostest runs cosmoskit's in-process Cosmos DB gateway server (package cosmostest) as a
// process: a drop-in for the vNext emulator image (mcr.microsoft.com/cosmosdb/linux/azure-cosmos-emulator:vnext-preview).
//
//	go run ./cmd/cosmostest --port 8081 --protocol http --partitions 4
//
// It honours the emulator's --port/PORT (default 8081), --protocol/PROTOCOL (http by default),
// --gateway-endpoint/GATEWAY_PUBLIC_ENDPOINT (advertised host[:port]), --key-file/KEY_FILE and
// --log-level/LOG_LEVEL, adds --partitions, --regions, --consistency, --replication-lag,
// --aad-audience, --export-cert, --throughput-limits, --clock-skew, the control API
// (--control-port, --control-token; see controlDoc) and the Data Explorer on it (--explorer), and accepts and ignores the emulator's other flags. It prints a line containing
// "Started" when it serves requests and shuts down cleanly on SIGTERM or SIGINT. Run with --help
// for the list.
//
// Standing in for the emulator, it reports the account metadata the emulator reports: region
// "South Central US", the endpoint https://127.0.0.1:<port>/ (http:// with --protocol http), and
// consistency Session unless --consistency says otherwise (the azcosmos emulator suite runs the
// emulator with /consistency=Strong, see scripts/emulator-suite.sh). It accepts Microsoft Entra ID
// (AAD) tokens as the emulator with AAD authentication does (cosmostest.WithAADTokens), and serves
// its certificate at /_explorer/emulator.pem. In-process servers (package cosmostest) keep their
// own defaults: region "West US", the listener's own address, Session, AAD tokens refused.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "cosmostest:", err)
		stop()
		os.Exit(2)
	}
}

// run starts the server as the arguments and environment say, reports it on stdout and serves until
// ctx is done.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseConfig(args, getenv)
	if err != nil {
		return err
	}
	if cfg.Help {
		_, err := io.WriteString(stdout, usage)
		return err
	}
	logger, err := newLogger(stderr, cfg.LogLevel)
	if err != nil {
		return err
	}
	opts, err := serverOptions(cfg, logger)
	if err != nil {
		return err
	}
	srv, err := cosmostest.Start(opts...)
	if err != nil {
		return err
	}
	defer srv.Close()

	var out strings.Builder
	var emulator, unknown []string
	for _, name := range cfg.Ignored {
		if ignoredFlags[name] {
			emulator = append(emulator, name)
		} else {
			unknown = append(unknown, name)
		}
	}
	if len(emulator) > 0 {
		fmt.Fprintf(&out, "cosmostest: ignoring emulator flags: --%s\n", strings.Join(emulator, ", --"))
	}
	if len(unknown) > 0 {
		fmt.Fprintf(&out, "cosmostest: ignoring unknown flags: --%s\n", strings.Join(unknown, ", --"))
	}
	listening := srv.Endpoint()
	fmt.Fprintf(&out, "cosmostest: listening on %s, advertising %s, %d partition(s) per container\n",
		listening, advertised(cfg, listening), cfg.Partitions)
	for _, r := range cfg.Regions[min(1, len(cfg.Regions)):] {
		fmt.Fprintf(&out, "cosmostest: region %q at %s\n", r, srv.RegionEndpoint(r))
	}
	if cfg.Lag > 0 {
		fmt.Fprintf(&out, "cosmostest: replication lag %s, consistency %s\n", cfg.Lag, cfg.Consistency)
	}
	if cfg.MultiWrite {
		out.WriteString("cosmostest: multi-write: every region accepts writes\n")
	}
	if cfg.ControlPort >= 0 {
		h, err := newControl(srv, cfg.ControlTok)
		if err != nil {
			return err
		}
		ln, err := net.Listen("tcp", ":"+strconv.Itoa(cfg.ControlPort))
		if err != nil {
			return fmt.Errorf("control API: %w", err)
		}
		if cfg.Explorer {
			ex, err := srv.ExplorerHandler(cfg.ControlTok)
			if err != nil {
				_ = ln.Close()
				return err
			}
			mux := http.NewServeMux()
			mux.Handle("/explorer/", http.StripPrefix("/explorer", ex))
			mux.Handle("/", h)
			h = mux
		}
		hs := controlServer(h, logger)
		go func() { _ = hs.Serve(ln) }()
		defer func() { _ = hs.Close() }()
		port := ln.Addr().(*net.TCPAddr).Port
		fmt.Fprintf(&out, "cosmostest: control API on http://127.0.0.1:%d/\n", port)
		if cfg.Explorer {
			fmt.Fprintf(&out, "cosmostest: Data Explorer on http://127.0.0.1:%d/explorer/ (it asks for the control token)\n", port)
		}
	}
	out.WriteString("cosmostest: Started\n")
	if _, err := io.WriteString(stdout, out.String()); err != nil {
		return err
	}

	<-ctx.Done()
	_, err = io.WriteString(stdout, "cosmostest: shutting down\n")
	return err
}

// controlServer is the control API's HTTP server. What net/http reports about its connections
// (a handler's panic, a failed accept) goes to the command's logger at info level, not to stderr
// through the standard logger, as the gateway's listeners do (cosmostest.WithLogger).
func controlServer(h http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelInfo)}
}

// serverOptions maps the configuration onto cosmostest options, logging to logger.
func serverOptions(cfg config, logger *slog.Logger) ([]cosmostest.Option, error) {
	opts := []cosmostest.Option{
		cosmostest.WithAddress(":" + strconv.Itoa(cfg.Port)),
		cosmostest.WithAdvertisedHost(cfg.Gateway),
		cosmostest.WithPartitionCount(cfg.Partitions),
		cosmostest.WithLogger(logger),
		cosmostest.WithDefaultConsistency(cfg.Consistency),
		cosmostest.WithReplicationLag(cfg.Lag),
		cosmostest.WithAADTokens(),
	}
	if len(cfg.AADAudience) > 0 {
		opts = append(opts, cosmostest.WithAADAudience(cfg.AADAudience...))
	}
	if cfg.Protocol == "http" {
		if cfg.ExportCert != "" {
			return nil, errors.New("--export-cert needs --protocol https: over http there is no certificate")
		}
		opts = append(opts, cosmostest.WithHTTP())
	} else if cfg.ExportCert != "" {
		opts = append(opts, cosmostest.WithCertificateFile(cfg.ExportCert))
	}
	if cfg.KeyFile != "" {
		key, err := readKey(cfg.KeyFile)
		if err != nil {
			return nil, err
		}
		opts = append(opts, cosmostest.WithKey(key))
	}
	if len(cfg.Regions) > 0 {
		opts = append(opts, cosmostest.WithRegions(cfg.Regions...))
	}
	if cfg.MultiWrite {
		opts = append(opts, cosmostest.WithMultiWrite())
	}
	if cfg.Throughput {
		opts = append(opts, cosmostest.WithThroughputLimits())
	}
	opts = append(opts, cosmostest.WithClockSkew(cfg.ClockSkew))
	return opts, nil
}

// advertised is the account endpoint written into the account metadata: the gateway endpoint, with
// the listening port when it names none.
func advertised(cfg config, listening string) string {
	scheme := "http"
	if cfg.Protocol != "http" {
		scheme = "https"
	}
	host := cfg.Gateway
	if _, _, err := net.SplitHostPort(host); err != nil {
		port := strconv.Itoa(cfg.Port)
		if u, err := url.Parse(listening); err == nil && u.Port() != "" {
			port = u.Port()
		}
		host = net.JoinHostPort(strings.Trim(host, "[]"), port)
	}
	return scheme + "://" + host + "/"
}
