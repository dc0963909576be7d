PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup run test lint bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): $(PY) pyproject.toml
	$(PY) -m pip install --quiet -e ".[test,dask]"
	touch $(STAMP)

setup: $(STAMP)

run: setup
	$(VENV)/bin/streamlit run app.py

test: setup
	$(PY) -m pytest

lint: setup
	$(VENV)/bin/ruff check metriclab pages tests bench tools app.py
	$(VENV)/bin/ruff format --check metriclab pages tests bench tools app.py

bench: setup
	$(PY) -m pip install --quiet -e ".[bench]"
	$(PY) -m metriclab bench all

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .metriclab_cache
