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

.PHONY: setup run test ui browser bench clean-warehouse

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: setup
	$(BIN)/duocthu ingest $(INBOX) --warehouse $(WAREHOUSE) --report $(WAREHOUSE)/last_ingest.json

test: setup
	$(BIN)/python -m pytest -q

# The UI, the daemon (inbox sensor, nightly schedule, run queue) and a code
# server: `dg dev`, the command this Dagster line recommends (it loads the
# project that pyproject.toml's [tool.dg] names, with this venv's Python);
# DAGSTER_HOME inside the warehouse, its dagster.yaml from instance.py.
# Loopback only (-h 127.0.0.1).
ui: setup
	@home=$$($(BIN)/python -c 'import sys; from duocthu_assets.instance import dagster_home_for, ensure_dagster_home; print(ensure_dagster_home(dagster_home_for(sys.argv[1])))' '$(DUOCTHU_WAREHOUSE)') \
	  && echo "DAGSTER_HOME=$$home  DUOCTHU_MAX_CONCURRENT=$(DUOCTHU_MAX_CONCURRENT)  http://127.0.0.1:$${PORT:-3000}" \
	  && DAGSTER_HOME="$$home" VIRTUAL_ENV="$(abspath $(VENV))" exec $(BIN)/dg dev --use-active-venv --no-check-yaml -h 127.0.0.1 -p $${PORT:-3000}

# Debian's Chromium for the browser test in tests/test_ui_e2e.py; idempotent.
# Without root or a reachable package mirror it only warns: the test then skips, saying why.
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
	  || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	  || echo "make browser: chromium could not be installed; the browser test will be skipped" >&2
	@command -v chromium >/dev/null 2>&1 && chromium --version 2>/dev/null || true

bench: setup
	$(BIN)/python bench/ingest.py

clean-warehouse:
	rm -rf $(WAREHOUSE)
