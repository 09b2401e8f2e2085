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

# Each step of `make test` runs through scripts/step.sh: quiet on success (one line: the step, "ok",
# a summary, its wall time; test steps add one line per skipped test with its reason), the step's
# full output on failure, and make stops there. V=1 also streams every step's output as it runs.
STEP := ./scripts/step.sh
# The unit and integration steps pipe `go test -json` through scripts/testreport.go (under pipefail,
# so the pipe cannot turn a failure into success). SLOW=N adds the N slowest packages and tests.
TESTREPORT = $(GO) run ./scripts/testreport.go $(if $(SLOW),-slow $(SLOW))

.PHONY: test tidy vet lint lint-exceptions api api-baseline unit integration emulator-suite tools image bench

## test: everything CI runs: go.mod tidiness, vet, lint, the API compatibility gate, unit tests with -race, integration tests,
## and the azcosmos module's own emulator test suite against cmd/cosmostest. One line per step on success.
## The checks run first, one after the other (a lint failure shows in seconds); then the three test
## steps run at once: integration and emulator-suite mostly wait (containers, the suite's sleeps),
## so beside unit they add little wall time. They share no port: only emulator-suite binds 8081,
## integration's containers publish on free ports. Output is grouped by step (--output-sync; GNU make
## 3.81, macOS's, lacks it: there each step's lines still come out together, from step.sh).
test: tidy vet lint api
	@$(MAKE) --no-print-directory -j3 $(if $(filter 3.%,$(MAKE_VERSION)),,--output-sync=target) unit integration emulator-suite

## tidy: fails when go.mod or go.sum (of either module) differ from what `go mod tidy` writes.
## go.mod's go line is the oldest Go the module builds with: 1.26.0, because go.opentelemetry.io/otel
## v1.47.0 and golang.org/x/sys v0.48.0 declare it (our own code needs 1.25: sync.WaitGroup.Go in
## tests, and 1.24's strings.SplitSeq, slog.DiscardHandler, weak, testing.B.Loop).
tidy:
	@$(STEP) tidy sh -c '$(GO) mod tidy -diff && cd integration && $(GO) mod tidy -diff'

vet:
	@$(STEP) vet sh -c '$(GO) vet ./... && cd integration && $(GO) vet ./...'

## emulator-suite: runs azcosmos's emulator_*_test.go against cmd/cosmostest on https://localhost:8081
## (the port must be free); fails on any failure not on the script's allow-list.
emulator-suite:
	@$(STEP) emulator-suite env GO=$(GO) ./scripts/emulator-suite.sh

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

## lint: golangci-lint (.golangci.yml) on both modules. --allow-serial-runners: a second run on this
## machine waits for the first instead of failing.
lint: tools
	@$(STEP) lint sh -c '$(GOLANGCI_LINT) run --allow-serial-runners ./... && \
		cd integration && $(GOLANGCI_LINT) run --allow-serial-runners ./... && \
		echo "lint ok: 0 issues"'

## lint-exceptions: prints the functions of non-test code over the funlen/gocognit limits of
## .golangci.yml as its list of exceptions (scripts/size-exceptions.sh); WRITE=1 rewrites the list in
## .golangci.yml. After splitting a long or complex function: `make lint-exceptions WRITE=1`, commit.
lint-exceptions: tools
	@GOLANGCI_LINT=$(GOLANGCI_LINT) ./scripts/size-exceptions.sh $(if $(WRITE),-w)

## api: fails when the exported API of a public package is incompatible with api/baseline.apidiff
## (scripts/api.sh: removed identifiers, changed signatures, ...; additions pass). One line on success.
api: tools
	@$(STEP) api env GO=$(GO) APIDIFF=$(APIDIFF) ./scripts/api.sh check

## api-baseline: rewrites api/baseline.apidiff from the code, once every incompatible change is named
## in CHANGELOG.md's [Unreleased] section; commit both together.
api-baseline: tools
	@GO=$(GO) APIDIFF=$(APIDIFF) ./scripts/api.sh baseline

## unit: the root module's tests with -race; prints a count and each skipped test with its reason,
## failures in full.
unit:
	@GORACE="atexit_sleep_ms=0 $$GORACE" $(STEP) unit bash -c 'set -o pipefail; $(GO) test -race -json -count=1 -timeout 8m ./... | $(TESTREPORT) -name unit'

## integration: the nested module's tests; prints a count and each skipped test with its reason (no
## Docker engine, an image not present), failures in full.
integration:
	@$(STEP) integration bash -c 'set -o pipefail; (cd integration && $(GO) test -json -count=1 -timeout 8m ./...) | $(TESTREPORT) -name integration'

## image: builds the cosmostest server as a static binary and a FROM scratch image (no pull needed).
image:
	./scripts/build-image.sh

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
