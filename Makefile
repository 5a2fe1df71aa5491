# duocthu — the README's commands. `make setup` is idempotent; run and test use it.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
WAREHOUSE ?= data/warehouse
INBOX ?= data/inbox
export DUOCTHU_WAREHOUSE := $(abspath $(WAREHOUSE))
export DUOCTHU_INBOX := $(abspath $(INBOX))

.PHONY: setup run test ui bench clean-warehouse

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

ui: setup
	mkdir -p $(WAREHOUSE)/dagster_home
	DAGSTER_HOME=$(DUOCTHU_WAREHOUSE)/dagster_home $(BIN)/dagster dev -w workspace.yaml -h 127.0.0.1 -p $${PORT:-3000}

bench: setup
	$(BIN)/python bench/ingest.py

clean-warehouse:
	rm -rf $(WAREHOUSE)
