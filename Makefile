# fedrepro — see README.md. PAPER is one of upcycled, haar, normec, fedddpm;
# SCALE is smoke, default or paper (empty: the paper's default).
PAPER ?= upcycled
SCALE ?=
GO    ?= go
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
BIN   := bin/fedrepro
SCALEFLAG := $(if $(SCALE),--scale $(SCALE),)

.PHONY: all build reproduce verify audit test golden golden-claims golden-convergence bench data lint clean mutate drill

all: build

# The commit is stamped as a fallback for builds without VCS information
# (fedrepro version; every result and report records it).
BI      := github.com/fedrepro/fedrepro/internal/buildinfo
COMMIT  := $(shell git rev-parse HEAD 2>/dev/null)
DIRTY   := $(shell [ -n "$$(git status --porcelain --untracked-files=no 2>/dev/null)" ] && echo true || echo false)
LDFLAGS := -X $(BI).commit=$(COMMIT) -X $(BI).dirty=$(DIRTY)

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/fedrepro

# Run a paper's experiments (resuming) and write reports/$(PAPER)/.
reproduce: build
	@./$(BIN) data --fetch --brief
	./$(BIN) reproduce --paper $(PAPER) $(SCALEFLAG)

# Claim checks with verdicts and evidence.
verify: build
	./$(BIN) verify --paper $(PAPER)

# Privacy-figure audit.
audit: build
	./$(BIN) audit --paper $(PAPER)

# vet + every test, including each paper's smoke-scale golden gate.
test:
	@$(GO) run ./cmd/fedrepro data --fetch --brief
	$(GO) vet ./...
	$(GO) test -timeout 30m ./...

# Re-record goldens of one paper (review the diff like code): the claim
# outcomes (verdicts and named values), and the smoke results and audit
# tables from a fresh run in a temporary directory — or, with
# SCALE=default|paper, the results already in results/ (missing runs are
# run; after a code change, `fedrepro reproduce --force` first). Each prints
# the review of the old golden against the new one (paired by seed).
golden: build
ifeq ($(if $(SCALE),$(SCALE),smoke),smoke)
	$(GO) test ./reproduce/$(PAPER)/ -run '^TestGate$$' -count=1 -timeout 30m -update -v | (grep -v -E '^ *(=== RUN|--- PASS|PASS$$|ok )' || true)
else
	./$(BIN) compare --paper $(PAPER) --scale $(SCALE) --update
endif
	$(GO) test ./reproduce/$(PAPER)/ -run '^TestClaims$$' -count=1 -timeout 30m -update -v | (grep -v -E '^ *(=== RUN|--- PASS|PASS$$|ok )' || true)

# Re-record the audited verdicts and numbers of every claim file
# (golden/claims/<id>.json) and the generated tables of claims/README.md.
golden-claims:
	$(GO) test ./claims/ -run '^TestGolden$$' -count=1 -timeout 30m -update -v | (grep -v -E '^ *(=== RUN|--- PASS|PASS$$|ok )' || true)

# Re-record the verdicts of every convergence claim file
# (golden/convergence/<id>.json) and the verdict table of
# claims/convergence/README.md.
golden-convergence:
	$(GO) test ./claims/convergence/ -run '^TestGolden$$' -count=1 -timeout 30m -update -v | (grep -v -E '^ *(=== RUN|--- PASS|PASS$$|ok )' || true)

# Every Go benchmark, COUNT times, summarised as a Markdown table (median and
# 95% interval; scripts/benchtable, golang.org/x/perf). BENCH_OLD=file
# compares with an earlier run (Δ and the Mann–Whitney p-value, as benchstat).
COUNT ?= 6
bench:
	@mkdir -p bin
	$(GO) test -run '^$$' -bench . -benchmem -count $(COUNT) ./... | tee bin/bench.txt
	$(GO) run ./scripts/benchtable $(BENCH_OLD) bin/bench.txt

# Mutation score (gremlins v0.6.0) of each numeric package of algorithms/, one
# table; slow (about an hour on 2 cores), not part of CI. PKGS narrows it:
# make mutate PKGS="algorithms/fl algorithms/optim".
mutate:
	./scripts/mutate.sh $(PKGS)

# Plant each of scripts/drill.sh's one-line bugs in turn and say which the
# tests catch (RUN='^TestGate$' lets only the smoke gates judge). Not CI.
drill:
	RUN='$(RUN)' ./scripts/drill.sh $(PLANTS)

# Check every dataset by checksum and obtain what is missing: the released
# Upcycled-FL data from the authors' repository at the pinned commit (into
# .cache/, which git ignores) unless ../shared has it, and Fashion-MNIST
# from Debian's package dataset-fashion-mnist (apt-get, as root or with
# password-less sudo). Exits 1 when something is still missing.
data: build
	./$(BIN) data --fetch

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

clean:
	rm -rf bin
