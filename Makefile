# cosmoskit make targets. `make test` is what CI runs (see .ci/run).
GO ?= go
# bash, so that a recipe can set -o pipefail: a pipe must not turn a failing test run into success.
SHELL := /bin/bash
GOLANGCI_LINT_VERSION ?= v2.15.0
GOBIN ?= $(shell $(GO) env GOPATH)/bin
GOLANGCI_LINT ?= $(GOBIN)/golangci-lint
# apidiff (golang.org/x/exp/cmd/apidiff) at a pinned golang.org/x/exp version, installed by `make tools`.
APIDIFF_VERSION ?= v0.0.0-20261120182113-8801fbdfac81
APIDIFF ?= $(GOBIN)/apidiff

.PHONY: test tidy vet lint api api-baseline unit integration emulator-suite tools image bench

## test: everything CI runs: go.mod tidiness, vet, lint, the API compatibility gate, unit tests with -race, integration tests,
## and the azcosmos module's own emulator test suite against cmd/cosmostest.
test: tidy vet lint api unit integration emulator-suite

## tidy: fails when go.mod or go.sum (of either module) differ from what `go mod tidy` writes.
## go.mod's go line is the oldest Go the module builds with: 1.26.0, because go.opentelemetry.io/otel
## v1.47.0 and golang.org/x/sys v0.48.0 declare it (our own code needs 1.25: sync.WaitGroup.Go in
## tests, and 1.24's strings.SplitSeq, slog.DiscardHandler, weak, testing.B.Loop).
tidy:
	$(GO) mod tidy -diff
	cd integration && $(GO) mod tidy -diff

vet:
	$(GO) vet ./...
	cd integration && $(GO) vet ./...

## emulator-suite: runs azcosmos's emulator_*_test.go against cmd/cosmostest on https://localhost:8081
## (the port must be free); fails on any failure not on the script's allow-list.
emulator-suite:
	GO=$(GO) ./scripts/emulator-suite.sh

## tools: installs golangci-lint and apidiff from the Go module proxy if missing or another version
## (go install pkg@version: neither module's go.mod changes).
tools:
	@if ! $(GOLANGCI_LINT) version 2>/dev/null | grep -q "$(patsubst v%,%,$(GOLANGCI_LINT_VERSION))"; then \
		echo "installing golangci-lint $(GOLANGCI_LINT_VERSION)"; \
		$(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION); \
	fi
	@if ! $(GO) version -m $(APIDIFF) 2>/dev/null | grep -q "golang.org/x/exp[[:space:]]*$(APIDIFF_VERSION)"; then \
		echo "installing apidiff $(APIDIFF_VERSION)"; \
		GOBIN=$(dir $(APIDIFF)) $(GO) install golang.org/x/exp/cmd/apidiff@$(APIDIFF_VERSION); \
	fi

lint: tools
	$(GOLANGCI_LINT) run ./...
	cd integration && $(GOLANGCI_LINT) run ./...

## api: fails when the exported API of a public package is incompatible with api/baseline.apidiff
## (scripts/api.sh: removed identifiers, changed signatures, ...; additions pass). One line on success.
api: tools
	@GO=$(GO) APIDIFF=$(APIDIFF) ./scripts/api.sh check

## api-baseline: rewrites api/baseline.apidiff from the code, once every incompatible change is named
## in CHANGELOG.md's [Unreleased] section; commit both together.
api-baseline: tools
	@GO=$(GO) APIDIFF=$(APIDIFF) ./scripts/api.sh baseline

unit:
	$(GO) test -race -count=1 -timeout 8m ./...

## integration: the nested module's tests; prints each skipped test with its reason (no Docker
## engine, an image not present), failures in full, a count, and go test's closing ok/FAIL lines.
integration:
	set -o pipefail; (cd integration && $(GO) test -json -count=1 -timeout 8m ./...) | $(GO) run ./scripts/testreport.go

## image: builds the cosmostest server as a static binary and a FROM scratch image (no pull needed).
image:
	./scripts/build-image.sh

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
