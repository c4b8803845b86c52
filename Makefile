# fedrepro — see README.md. PAPER is one of upcycled, haar, normec, fedddpm;
# SCALE is smoke, default or paper (empty: the paper's default).
PAPER ?= upcycled
SCALE ?=
GO    ?= go
BIN   := bin/fedrepro
SCALEFLAG := $(if $(SCALE),--scale $(SCALE),)

.PHONY: all build reproduce verify audit test golden bench data lint clean mutate

all: build

build:
	$(GO) build -o $(BIN) ./cmd/fedrepro

# Run a paper's experiments (resuming) and write reports/$(PAPER)/.
reproduce: build
	./$(BIN) reproduce --paper $(PAPER) $(SCALEFLAG)

# Claim checks with verdicts and evidence.
verify: build
	./$(BIN) verify --paper $(PAPER)

# Privacy-figure audit.
audit: build
	./$(BIN) audit --paper $(PAPER)

# vet + every test, including each paper's smoke-scale golden gate.
test:
	$(GO) vet ./...
	$(GO) test ./...

# Re-record goldens of one paper (review the diff like code): the expected
# claim verdicts, and the smoke results from a fresh run in a temporary
# directory — or, with SCALE=default|paper, the results already in results/
# (missing runs are run; after a code change, `fedrepro reproduce --force` first).
golden: build
ifeq ($(if $(SCALE),$(SCALE),smoke),smoke)
	$(GO) test ./reproduce/$(PAPER)/ -run '^TestGate$$' -count=1 -update
else
	./$(BIN) compare --paper $(PAPER) --scale $(SCALE) --update
endif
	$(GO) test ./proofs/$(PAPER)/ -run '^TestClaims$$' -count=1 -update

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Mutation score (gremlins v0.6.0) of each numeric package of algorithms/, one
# table; slow (about an hour on 2 cores), not part of CI. PKGS narrows it:
# make mutate PKGS="algorithms/fl algorithms/optim".
mutate:
	./scripts/mutate.sh $(PKGS)

# Fashion-MNIST from Debian (the one real image dataset of this platform).
data:
	@if [ -d /usr/share/datasets/fashion-mnist ]; then \
		echo "Fashion-MNIST present in /usr/share/datasets/fashion-mnist"; \
	elif command -v apt-get >/dev/null 2>&1; then \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update && $$SUDO apt-get install -y dataset-fashion-mnist; \
	else \
		echo "No apt-get here: download Fashion-MNIST's four IDX files into a folder and pass it with --data-dir (see README)"; exit 1; \
	fi

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

clean:
	rm -rf bin
