# ryvem — the two commands a newcomer needs are `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
SCALE  ?= full

.PHONY: install demo test lint docs bench eval neo4j-start neo4j-stop clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

install: $(STAMP)

demo: install
	@bash scripts/demo

test: install
	@bash scripts/run-tests

lint: install
	$(BIN)/ruff check src tests
	$(BIN)/mypy src
	$(BIN)/lint-imports

docs: install
	$(BIN)/python scripts/gen_reference.py
	$(BIN)/python scripts/screenshots.py
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict -q

eval: install
	$(BIN)/python eval/run.py $(EVAL_ARGS)

bench: install
	@bash scripts/run-bench $(SCALE)

neo4j-start:
	@scripts/neo4j-local start

neo4j-stop:
	@scripts/neo4j-local stop

clean:
	rm -rf $(VENV) .venv-lean .eval-cache .pytest_cache .mypy_cache .ruff_cache build *.egg-info src/*.egg-info
