# badged: `make run` starts the service on the embedded default; `make test` runs every test.
# Every tool a target uses is installed by `make tools` (go install) into $(TOOLBIN).

SHELL := /bin/bash
GO ?= go
TOOLBIN := $(shell $(GO) env GOPATH)/bin
SQLC_VERSION := v1.31.1
STATICCHECK_VERSION := v0.8.2
VERSITYGW_VERSION := v1.8.0
OAPI_CODEGEN_VERSION := v2.8.2
AXE_VERSION := 4.14.1
REDOCLY_VERSION := 2.77.0
# axe-core (the accessibility checker the badge page's browser test injects) lives here, never in the repository.
TOOLS_DIR := $(CURDIR)/.tools
export BADGED_AXE_JS := $(TOOLS_DIR)/node_modules/axe-core/axe.min.js
# Redocly CLI (the OpenAPI linter of make lint), pinned, under .tools/ like axe-core; run without telemetry or update checks.
REDOCLY := REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true $(TOOLS_DIR)/node_modules/.bin/redocly
# The test wallets of TestWallet_IndependentWallet and TestExchange_IndependentWallet (wallet/testdata/node): their npm
# packages, wallet/testdata/node/package.json, pinned whole by its package-lock.json (reinstalled when it changes).
WALLET_NPM_DIR := $(CURDIR)/wallet/testdata/node
export BADGED_WALLET_MODULES := $(TOOLS_DIR)/wallet/node_modules

.PHONY: redocly run build cluster cluster-down cluster-purge cluster-tool test test-race test-faults test-page screenshots bench bench-issuance bench-scale bench-cluster-scale record-histories lint check-compose generate check-generate tools axe os-deps postgres clean wallet-deps

run: postgres ## start the whole service on the embedded default (local Postgres, .data/)
	$(GO) run ./cmd/badged dev

build: ## bin/badged (production: no embedded Temporal or dev chain) and bin/badged-dev (with `dev`)
	CGO_ENABLED=0 $(GO) build -tags production -o bin/badged ./cmd/badged
	CGO_ENABLED=0 $(GO) build -o bin/badged-dev ./cmd/badged

# `make cluster`: badged's production topology on this machine, without containers (deploy/cluster): Temporal's own
# server built from go.mod's go.temporal.io/server (4 processes on the local Postgres), 2 APIs behind a balancer,
# 2 workers, S3, SMTP and the chain node. Idempotent (a process that died is started again, what runs is kept);
# state, logs and pids in .data/cluster.
# CLUSTER_FLAGS: e.g. --workers 1, --postgres URL, --port-offset N (see badged-cluster help).
# CLUSTER_NAME: a second cluster on the same Postgres (its own databases and .data/cluster-NAME); give it another
# --port-offset in CLUSTER_FLAGS too.
CLUSTER_TOOL := $(TOOLS_DIR)/bin/badged-cluster
CLUSTER_FLAGS ?=
CLUSTER_NAME ?=
CLUSTER_SELECT := $(if $(CLUSTER_NAME),--name $(CLUSTER_NAME))

cluster: build tools postgres cluster-tool ## start the local Temporal cluster and badged on it (again: restarts what died); prints where everything listens
	$(CLUSTER_TOOL) up $(CLUSTER_SELECT) $(CLUSTER_FLAGS)

cluster-down: cluster-tool ## stop what make cluster started; keeps its databases and .data/cluster (says how much)
	$(CLUSTER_TOOL) down $(CLUSTER_SELECT)

cluster-purge: cluster-tool ## stop the cluster, drop its databases and remove its state directory
	$(CLUSTER_TOOL) down --purge $(CLUSTER_SELECT)

cluster-tool:
	@$(GO) build -o $(CLUSTER_TOOL) ./cmd/badged-cluster

test: tools axe wallet-deps os-deps postgres ## all tests against the real components
	$(GO) test -count=1 -timeout 30m ./...

test-page: tools axe os-deps postgres ## the badge page in Chromium (valid, revoked, expired, unknown; en/ko; desktop and phone; axe) and its sharing (links, embed card)
	$(GO) test -count=1 -run 'TestBadgePage|TestSharing_Browser' -v -timeout 15m ./e2e/

screenshots: tools axe os-deps postgres ## refresh docs/screenshots/ from the browser test
	BADGED_SCREENSHOTS=$(CURDIR)/docs/screenshots $(GO) test -count=1 -run 'TestBadgePage_Browser|TestTemporalUI_FindsTrouble' -timeout 10m ./e2e/

test-race: tools os-deps postgres
	$(GO) test -race -count=1 -timeout 45m ./api/... ./wallet/... ./db/... ./internal/...

# The fault tests restart Postgres: the machine's cluster, or the server in BADGED_FAULTS_PGDATA (with
# TEST_DATABASE_URL pointing at it). The Temporal-cluster variants build Temporal's server once into .tools/.
test-faults: tools os-deps postgres ## fault tests (embedded Temporal and Temporal's own cluster): kill workers and services, restart Postgres; run alone
	$(GO) test -tags faults -count=1 -run 'TestFaults|TestScaleOut_TemporalCluster|TestCluster' -v -timeout 60m ./e2e/

bench: tools os-deps postgres ## benchmarks; figures go to docs/measurements.md (BADGED_BENCH_RECIPIENTS=10000 for the big issuance; the scale runs: make bench-scale, make bench-cluster-scale)
	$(GO) test -run '^$$' -bench . -benchmem -timeout 60m ./...

bench-stats: tools os-deps postgres ## the badge page's p99 with the event counter on and off, side by side in one run
	$(GO) test -run '^$$' -bench 'BenchmarkBadgePage_Counting$$' -benchtime 1x -timeout 10m ./api/

bench-issuance: tools os-deps postgres ## the issuance against its Temporal floor only: make bench-issuance BADGED_BENCH_RECIPIENTS=10000
	$(GO) test -run '^$$' -bench 'BenchmarkIssuance$$' -benchtime 1x -timeout 60m ./e2e/

# The set of workflow histories record-histories writes: a new directory when a workflow shape changes, so the
# older sets (of runs that may still be open) keep replaying.
HISTORIES ?= $(shell date -u +%Y-%m-%d)

bench-scale: tools os-deps postgres ## 10,000 then 100,000 recipients on the embedded stack, the work floor beside the first (BADGED_SCALE_SIZES=10000,100000)
	$(GO) test -run '^$$' -bench 'BenchmarkScale$$' -benchtime 1x -timeout 120m ./e2e/

# The same sizes on the production topology (deploy/cluster, as `make cluster` runs it, started and stopped by the
# benchmark on its own ports and databases), with 1 worker and then 2 (BADGED_SCALE_WORKERS); prints time,
# recipients/s, CPU ms per recipient of the API and worker processes, each one's peak RSS, the largest history,
# Postgres bytes per recipient and the 100k/10k ratio against issue 21's goals. Not part of `make bench` (it runs
# for hours and needs the machine to itself); verify it small first: BADGED_SCALE_SIZES=500,2000.
bench-cluster-scale: build tools os-deps postgres ## 10,000 then 100,000 recipients on Temporal's own cluster, 1 and 2 workers (BADGED_SCALE_SIZES, BADGED_SCALE_WORKERS)
	$(GO) test -tags faults -run '^$$' -bench 'BenchmarkClusterScale$$' -benchtime 1x -timeout 600m ./e2e/

record-histories: tools os-deps postgres ## record every workflow shape from real runs into temporal/testdata/histories/$(HISTORIES) (replayed by make test)
	$(GO) test -count=1 -run '^TestWorkflowHistories$$' -v -timeout 20m ./e2e/ -record -record.set=$(HISTORIES)

lint: tools redocly
	$(GO) vet ./...
	$(GO) -C client/v3 vet ./...
	$(GO) vet -tags faults ./e2e/
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(TOOLBIN)/staticcheck ./...
	cd client/v3 && $(TOOLBIN)/staticcheck ./... # the client is its own module
	$(TOOLBIN)/staticcheck -tags faults ./e2e/
	$(GO) test -count=1 -run '^TestOpenAPIDocument$$' ./api/ # the OpenAPI documents validate and match the route table
	$(GO) test -count=1 ./docs/ # every relative link and anchor of README.md and docs/ resolves
	@mkdir -p $(TOOLS_DIR)/openapi && for v in 2 3; do \
		$(GO) run ./client/internal/openapidump -version $$v -o $(TOOLS_DIR)/openapi/v$$v.json && \
		$(REDOCLY) lint --extends recommended-strict $(TOOLS_DIR)/openapi/v$$v.json || exit 1; done # both documents, strict

check-compose: ## `docker compose config` on docker-compose.yml where the compose plugin exists (go test ./deploy/ checks it everywhere)
	@sh deploy/check-compose.sh

generate: tools ## regenerate the sqlc code in db/ and the OpenAPI client in client/
	$(TOOLBIN)/sqlc generate -f db/sqlc.yaml
	PATH="$(TOOLBIN):$$PATH" $(GO) -C client/v3 generate ./...

check-generate: generate ## CI: the committed sqlc code matches the queries, the client matches api/openapi.yaml
	@git diff --exit-code -- db/ client/ || (echo "db/ or client/ is stale: run make generate and commit"; exit 1)
	@test -z "$$(git status --porcelain -- db/ client/)" || (git status --porcelain -- db/ client/; echo "db/ or client/ has untracked generated files"; exit 1)

tools: ## install the tools the targets use
	@test -x $(TOOLBIN)/sqlc || $(GO) install github.com/sqlc-dev/sqlc/cmd/sqlc@$(SQLC_VERSION)
	@test -x $(TOOLBIN)/staticcheck || $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	@$(TOOLBIN)/oapi-codegen -version 2>/dev/null | grep -qx '$(OAPI_CODEGEN_VERSION)' || $(GO) install github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@$(OAPI_CODEGEN_VERSION)
	@test -x $(TOOLBIN)/versitygw || $(GO) install github.com/versity/versitygw/cmd/versitygw@$(VERSITYGW_VERSION) # S3 server of the blob tests

os-deps: ## Debian packages the tests use (poppler-utils: pdftoppm/pdftotext/pdffonts check certificates; chromium + a Hangul font: the badge page test; jq: the README's First steps)
	@command -v pdftoppm >/dev/null || (apt-get update -qq && apt-get install -y -qq poppler-utils)
	@command -v jq >/dev/null || (apt-get update -qq && apt-get install -y -qq jq) # the README's First steps (e2e/readme_test.go)
	@command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)
	@fc-list :lang=ko | grep -q . || (apt-get update -qq && apt-get install -y -qq fonts-noto-cjk) # Hangul in screenshots

redocly: ## Redocly CLI for make lint's OpenAPI check, pinned, installed under .tools/ (npm)
	@grep -qs '"version": "$(REDOCLY_VERSION)"' $(TOOLS_DIR)/node_modules/@redocly/cli/package.json || \
		npm install --silent --no-audit --no-fund --prefix $(TOOLS_DIR) @redocly/cli@$(REDOCLY_VERSION)

axe: ## axe-core for the badge page's accessibility check, pinned, installed under .tools/ (npm)
	@test -f $(BADGED_AXE_JS) && grep -q '"version": "$(AXE_VERSION)"' $(TOOLS_DIR)/node_modules/axe-core/package.json || \
		npm install --silent --no-audit --no-fund --prefix $(TOOLS_DIR) axe-core@$(AXE_VERSION)

wallet-deps: ## the test wallets' npm packages (@openid4vc/openid4vci; jose; @digitalbazaar/vc and its suites), pinned by wallet/testdata/node/package-lock.json, under .tools/wallet (npm ci)
	@cmp -s $(WALLET_NPM_DIR)/package-lock.json $(TOOLS_DIR)/wallet/package-lock.json && test -d $(BADGED_WALLET_MODULES)/@digitalbazaar/vc || \
		(mkdir -p $(TOOLS_DIR)/wallet && cp $(WALLET_NPM_DIR)/package.json $(WALLET_NPM_DIR)/package-lock.json $(TOOLS_DIR)/wallet/ && \
		npm ci --silent --no-audit --no-fund --prefix $(TOOLS_DIR)/wallet)

postgres: ## start the local Postgres when it is down
	@pg_isready -q -h localhost -p 5432 || pg_ctlcluster --skip-systemctl-redirect $$(ls /etc/postgresql) main start
	@for i in $$(seq 30); do pg_isready -q -h localhost -p 5432 && exit 0; sleep 1; done; echo "postgres did not start"; exit 1

clean:
	rm -rf bin .data .tools
