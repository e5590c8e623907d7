# Two commands for a fresh machine:
#   make run   - install into .venv, write the sample data, start the app
#   make test  - install into .venv (+ Debian's chromium when root), lint, run the test suite
# one for the full suite (make test's and the slow ones): make test-all; and one for the edit loop:
#   make check - lint + the fast unit tests (no browser, Dask, AppTest, CLI/hostile-input end-to-end or scale tests)
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8501

# pytest-xdist: one worker per core (at most 4). The browser tests are two groups (each on one
# worker with its own Streamlit server and Chromium), the Dask tests another (one cluster), every
# other module stays on one worker; in collection order, so the long browser groups start first
# (tests/conftest.py).
# Each worker runs BLAS/OpenMP/numba with one thread. WORKERS=0 runs in this process.
WORKERS ?= auto
XDIST := -n $(WORKERS) --maxprocesses 4 --dist loadgroup --no-loadscope-reorder
# processes for the numba warm-up (fsviz/compute/warm.py): one per core, at most 4
CORES := $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -gt 4 ] && n=4; echo $$n)
# more pytest options, e.g. make test PYTEST_ARGS="--durations=30"
PYTEST_ARGS ?=
# the fast lane: what `make check` leaves out (markers set by tests/conftest.py)
HEAVY := slow or browser or dask or app or integration or scale

# Where PYTHONDONTWRITEBYTECODE is set (this machine sets it), every Python process would compile
# its imports from source (14 s of CPU instead of 5 for the app's, measured) and pytest would
# rewrite every test module in every worker of every run (10 s of CPU per worker): bytecode is
# written here, for the installed packages and this checkout (into the ignored __pycache__/)
export PYTHONDONTWRITEBYTECODE :=

.PHONY: run test test-all check samples bytecode browser bench clean

# uv resolves and installs the same releases as pip in a tenth of the time, on every core (pip:
# over a minute of one); where uv cannot be installed or reach the package index, pip does it as
# before. uv leaves bytecode to the first import (compiling all of site-packages at install cost
# 47 s of CPU, measured; the processes make starts write what they import: see the export below)
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	($(PY) -m pip install -q uv && $(VENV)/bin/uv pip install -q -p $(PY) -e ".[test,scale]") || \
	  ($(PY) -m pip install -q --upgrade pip && $(PY) -m pip install -q -e ".[test,scale]")
	touch $@

# this checkout's own bytecode, for the same reason (only what changed is recompiled)
bytecode: $(VENV)/.installed
	$(PY) -m compileall -q -j 0 app.py fsviz fsviz_app

samples: bytecode
	$(PY) -m fsviz.data.samples --if-missing

# the kernels compile in the background from the start (the app's own warm-up, started with
# its first session, then finds them compiled); the server answers at once
run: samples
	$(PY) -m fsviz.compute.warm --app > /dev/null 2>&1 & \
	$(PY) -m streamlit run app.py --server.port $(PORT) --browser.gatherUsageStats false

# Debian's chromium for the real-browser tests; never 'playwright install' (no downloads here).
browser:
	@if [ -x /usr/bin/chromium ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else echo "note: /usr/bin/chromium missing and no root: browser tests will be skipped (apt-get install chromium)"; fi

# The recorded numba kernel signatures compiled once (a fresh checkout has none: otherwise the
# test workers compile them, often the same one twice at once), started first and in the background:
# the sample data and the lint, run meanwhile, are one process each, so they use the core the
# warm-up's start leaves idle (the sample data's first imports write most of site-packages'
# bytecode: 10 s on a fresh install). A failure of either side fails the target, after both end.
define prepare_tests
	$(PY) -m fsviz.compute.warm --signatures-only --jobs $(CORES) & warm=$$!; \
	$(MAKE) --no-print-directory samples && $(PY) -m ruff check . && $(PY) -m ruff format --check .; \
	ok=$$?; wait $$warm && exit $$ok
endef

# one style for the whole tree (ruff), the numba warm-up, then the tests and doctests
test: $(VENV)/.installed browser
	$(prepare_tests)
	$(PY) -m pytest -m "not slow" -q --doctest-modules $(XDIST) $(PYTEST_ARGS) fsviz tests

# the full suite: make test's, plus the tests marked slow (the whole hostile-input matrix through
# the app, the browser journeys make test leaves to the AppTests, the long runs)
test-all: $(VENV)/.installed browser
	$(prepare_tests)
	$(PY) -m pytest -q --doctest-modules $(XDIST) $(PYTEST_ARGS) fsviz tests

# the edit loop: the same lint, then the unit tests without the heavy kinds (HEAVY above)
check: $(VENV)/.installed samples
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m pytest -m "not ($(HEAVY))" -q $(XDIST) $(PYTEST_ARGS) tests

bench: $(VENV)/.installed
	for f in benchmarks/bench_*.py; do $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache
