PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup run class test test-oldest lint bench docs clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): $(PY) pyproject.toml
	$(PY) -m pip install --quiet -e ".[test,dask]"
	touch $(STAMP)

setup: $(STAMP)

# streamlit run, with no request to another host at start (metriclab/ui/shared/serve.py)
run: setup
	$(PY) -m metriclab.ui.shared.serve run app.py

# A class on this machine: WORKERS Streamlit processes behind HAProxy on PORT (sticky sessions,
# one shared disk cache of the full-size graphs). Needs Debian's haproxy: apt-get install haproxy.
# Other hosts' workers: make class HOSTS="host2:8601 host2:8602"; see README "A class".
WORKERS ?= 2
PORT ?= 8501
HOSTS ?=
class: setup
	$(PY) -m metriclab.deploy --workers $(WORKERS) --port $(PORT) $(if $(HOSTS),--hosts $(HOSTS))

# two worker processes, a whole test file to each at a time (a file's browser tests share its server
# and its browser); TEST_WORKERS=0 runs the suite in this one process
TEST_WORKERS ?= 2
TEST_PARALLEL = $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadfile)

test: setup
	$(PY) -m pytest $(TEST_PARALLEL)

# The oldest end of the pinned range (pyproject.toml; ui/shared/streamlit_private.py says why the
# range matters): a second venv with the oldest Streamlit and scikit-learn allowed, on the tests
# of the app: the architecture rules, the Embed and link AppTests and the browser tests of the
# view and sessions (the AppTests that drive an upload box or pills need a newer AppTest).
OLDEST := .venv-oldest
OLDEST_PINS := streamlit==1.52.0 scikit-learn==1.6.1
OLDEST_TESTS := tests/test_architecture.py tests/test_app_embed.py tests/test_url_validation.py \
	tests/test_browser_view.py tests/test_browser_sessions.py

$(OLDEST)/.installed: pyproject.toml
	$(PYTHON) -m venv $(OLDEST)
	$(OLDEST)/bin/python -m pip install --quiet --upgrade pip
	$(OLDEST)/bin/python -m pip install --quiet -e ".[test]" $(OLDEST_PINS)
	touch $@

# Left out there: two browser tests that look up select-box options out of view, which Streamlit
# 1.52's list does not put into the page (seen: 'usps', 'Tangent distance k-NN' not found).
OLDEST_SKIP := not (keeps_valid_values_and_announces or image_methods_are_offered_only)

test-oldest: $(OLDEST)/.installed
	$(OLDEST)/bin/python -m pytest $(TEST_PARALLEL) $(OLDEST_TESTS) -k "$(OLDEST_SKIP)"

lint: setup
	$(VENV)/bin/ruff check metriclab pages tests bench tools app.py examples docs/source setup.py
	$(VENV)/bin/ruff format --check metriclab pages tests bench tools app.py examples docs/source setup.py

bench: setup
	$(PY) -m pip install --quiet -e ".[bench]"
	$(PY) -m metriclab bench all

# The documentation site, from nothing, warnings as errors (the gallery's examples run here).
docs: setup
	$(PY) -m pip install --quiet -e ".[docs]"
	rm -rf docs/_build docs/source/generated docs/source/_generated docs/source/auto_examples \
		docs/source/tables docs/source/sg_execution_times.rst
	MPLBACKEND=Agg $(VENV)/bin/sphinx-build -W --keep-going -q -b html docs/source docs/_build/html
	# the site works offline: no script, stylesheet or font from another host; equations typeset
	# by the site's own MathJax in Chromium with every request refused (where Chromium is found)
	$(PY) tools/check_docs_offline.py docs/_build/html --browser
	@echo "docs: docs/_build/html/index.html"

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .metriclab_cache docs/_build
