# duocthu — the README's commands. `make setup` is idempotent; run and test use it.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
WAREHOUSE ?= data/warehouse
INBOX ?= data/inbox
export DUOCTHU_WAREHOUSE := $(abspath $(WAREHOUSE))
export DUOCTHU_INBOX := $(abspath $(INBOX))
# steps one run may execute at once (the multiprocess executor's limit)
DUOCTHU_MAX_CONCURRENT ?= 2
export DUOCTHU_MAX_CONCURRENT

setup: $(STAMP) hooks

# the commit-msg hook of CONTRIBUTING.md (subject `area: what changed`, <= 72
# characters); only in a git checkout, never fatal
hooks:
	@git rev-parse --git-dir >/dev/null 2>&1 && git config core.hooksPath .githooks || true

.PHONY: setup hooks run test ui browser faults-deps ocr bench clean-warehouse scale-deps scale-setup scale-test

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: setup
	$(BIN)/duocthu ingest $(INBOX) --warehouse $(WAREHOUSE) --report $(WAREHOUSE)/last_ingest.json

# the suite; tests/repo/test_architecture.py runs lint-imports (.importlinter)
test: setup
	$(BIN)/python -m pytest -q

# The UI, the daemon (inbox sensor, nightly schedule, run queue) and a code
# server: `dg dev`, the command this Dagster line recommends (it loads the
# project that pyproject.toml's [tool.dg] names, with this venv's Python);
# DAGSTER_HOME inside the warehouse, its dagster.yaml from
# duocthu_assets/runtime/instance.py.
# Loopback only (-h 127.0.0.1).
ui: setup
	@home=$$($(BIN)/python -c 'import sys; from duocthu_assets.runtime.instance import dagster_home_for, ensure_dagster_home; print(ensure_dagster_home(dagster_home_for(sys.argv[1])))' '$(DUOCTHU_WAREHOUSE)') \
	  && echo "DAGSTER_HOME=$$home  DUOCTHU_MAX_CONCURRENT=$(DUOCTHU_MAX_CONCURRENT)  http://127.0.0.1:$${PORT:-3000}" \
	  && echo "reviewers: http://127.0.0.1:$${PORT:-3000}/assets/review (documents blocked, rejected, failed; docs/ui.md)" \
	  && DAGSTER_HOME="$$home" VIRTUAL_ENV="$(abspath $(VENV))" exec $(BIN)/dg dev --use-active-venv --no-check-yaml -h 127.0.0.1 -p $${PORT:-3000}

# Debian's Chromium for the browser test in tests/ui/test_ui_e2e.py; idempotent.
# Without root or a reachable package mirror it only warns: the test then skips, saying why.
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
	  || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	  || echo "make browser: chromium could not be installed; the browser test will be skipped" >&2
	@command -v chromium >/dev/null 2>&1 && chromium --version 2>/dev/null || true

# mkfs.ext4 for the disk-full tests of tests/faults/ (an ext4 image on a loop
# device, needs root); idempotent. Without it, or without root, they skip saying why.
faults-deps:
	@command -v mkfs.ext4 >/dev/null 2>&1 \
	  || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq e2fsprogs >/dev/null) \
	  || echo "make faults-deps: e2fsprogs could not be installed; the disk-full fault tests will be skipped" >&2

# Debian's Tesseract 5 with Vietnamese (vie, and script/Vietnamese from
# tesseract-ocr-script-viet, installed as "Vietnamese"), English and Persian
# data, for OCR of scanned pages (issue 39; docs/pdf-reader.md "Scanned
# pages"); idempotent.
# Without root or a reachable package mirror it only warns: scanned pages then
# stay blocked, named, and the OCR tests skip, saying why.
OCR_PACKAGES := tesseract-ocr tesseract-ocr-vie tesseract-ocr-script-viet tesseract-ocr-eng tesseract-ocr-fas
ocr:
	@{ command -v tesseract >/dev/null 2>&1 && for l in vie Vietnamese eng fas; do tesseract --list-langs 2>/dev/null | grep -qx $$l || exit 1; done; } \
	  || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(OCR_PACKAGES) >/dev/null) \
	  || echo "make ocr: tesseract-ocr could not be installed; scanned pages stay blocked and the OCR tests will be skipped" >&2
	@command -v tesseract >/dev/null 2>&1 && tesseract --version 2>/dev/null | head -1 || true

bench: setup
	$(BIN)/python bench/ingest.py

# Issue 20 items 4-6 (README, "Running at scale"). Debian's PostgreSQL and
# Redis, installed when absent (idempotent, as `make browser`); apt's own
# start of their system services is refused for the install (policy-rc.d):
# the tests start their own servers on loopback and stop them. Without root
# or a package mirror it only warns, and the scale tests skip, saying why.
SCALE_STAMP := $(VENV)/.installed-scale
scale-deps:
	@{ command -v redis-server && { command -v initdb || ls /usr/lib/postgresql/*/bin/initdb; }; } >/dev/null 2>&1 \
	  || { policy=/usr/sbin/policy-rc.d; made=; \
	       if [ ! -e $$policy ]; then printf '#!/bin/sh\nexit 101\n' > $$policy && chmod +x $$policy && made=1; fi; \
	       { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql redis-server >/dev/null; }; \
	       rc=$$?; [ -n "$$made" ] && rm -f $$policy; [ $$rc = 0 ]; } \
	  || echo "make scale-deps: postgresql/redis-server could not be installed; the scale tests will be skipped" >&2

scale-setup: $(SCALE_STAMP)

$(SCALE_STAMP): pyproject.toml $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,scale]'
	touch $(SCALE_STAMP)

# PostgreSQL, Redis, two Celery workers, dagster-daemon, moto's S3 server and
# a webserver, started from nothing by the tests and stopped again (also on
# failure: the script's trap); DUOCTHU_SCALE_DOCS bench documents (200).
scale-test: scale-deps scale-setup
	bash scripts/scale_test.sh

clean-warehouse:
	rm -rf $(WAREHOUSE)
