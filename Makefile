# Two commands for a fresh machine:
#   make run   - install into .venv, write the sample data, start the app
#   make test  - install into .venv (+ Debian's chromium when root), lint, run the whole test suite
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8501

.PHONY: run test samples browser bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test,scale]"
	touch $@

samples: $(VENV)/.installed
	$(PY) -m fsviz.data.samples --if-missing

run: samples
	$(PY) -m streamlit run app.py --server.port $(PORT) --browser.gatherUsageStats false

# Debian's chromium for the real-browser tests; never 'playwright install' (no downloads here).
browser:
	@if [ -x /usr/bin/chromium ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else echo "note: /usr/bin/chromium missing and no root: browser tests will be skipped (apt-get install chromium)"; fi

# one style for the whole tree (ruff), then the tests and the library's doctests
test: $(VENV)/.installed browser samples
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m pytest -m "not slow" -q --doctest-modules fsviz tests

bench: $(VENV)/.installed
	for f in benchmarks/bench_*.py; do $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache
