# ioscore: the two commands a new machine needs are `make demo` and `make test` (see README).
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV        := .venv
PY          := $(VENV)/bin/python
VENV_STAMP  := $(VENV)/.ioscore-installed
PYTHON      ?= python3

.PHONY: help demo test lint format setup suite serve stop clean check-static test-c test-py

help:
	@echo "make demo    build the suite, run a short demo run, load it and the IO500 corpus, serve the pages"
	@echo "make test    every test: C unit tests, suite under mpirun, service with PostgreSQL + Celery, browser"
	@echo "make lint    ruff, mypy, clang-format, makemigrations --check"
	@echo "make stop    stop the demo's web server, worker and embedded database"

# --- set-up -----------------------------------------------------------------------------------
setup: $(VENV_STAMP)

$(VENV_STAMP): requirements.txt requirements-dev.txt runners/pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-dev.txt
	$(PY) -m pip install -q --disable-pip-version-check --no-deps -e runners
	touch $@

suite:
	$(MAKE) -s -C suite

# --- the two front-door commands ----------------------------------------------------------
demo:
	scripts/system-packages.sh demo
	$(MAKE) setup suite
	scripts/demo.sh

test:
	scripts/system-packages.sh test
	$(MAKE) setup suite
	scripts/test.sh

stop:
	scripts/demo.sh stop

# --- developer habits ---------------------------------------------------------------------
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	IOSCORE_INSECURE_DEV_KEY=1 $(VENV)/bin/mypy runners/ioscore webapp
	find suite -name '*.[ch]' -not -path 'suite/build*' | xargs clang-format --dry-run -Werror
	cd webapp && DEBUG=1 ../$(PY) manage.py makemigrations --check --dry-run

format: setup
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .
	find suite -name '*.[ch]' -not -path 'suite/build*' | xargs clang-format -i

check-static:
	cd static/js && echo "3b6e15d45dbb7fca5bd2094291e961ddc5472cd887009e6009a56dab668d721f  plotly-4.1.1.min.js" | sha256sum -c -

clean:
	$(MAKE) -s -C suite clean
	rm -rf demo-data demo-results test-artifacts var/demo
