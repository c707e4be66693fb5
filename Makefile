# The two commands of the README's quick start. Each creates .venv when needed and installs
# gridsat into it, so a fresh machine needs only python3, pip and make.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test quick lint docs clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[all]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/gridsat crosscheck tatami 4x7 --show

# The suite runs on every core (pytest-xdist): most tests keep one core busy, and many wait on a child.
test: $(STAMP)
	$(BIN)/ruff check gridsat models solvers benchmarks tests examples
	$(BIN)/python -m pytest -q -n auto

# The inner loop: the suite without the tests marked slow (make test runs them too).
quick: $(STAMP)
	$(BIN)/ruff check gridsat models solvers benchmarks tests examples
	$(BIN)/python -m pytest -q -n auto -m "not slow"

lint: $(STAMP)
	$(BIN)/ruff check gridsat models solvers benchmarks tests examples

# The documentation site, warnings as errors, into docs/_build/html (the docs extra is part of all).
docs: $(STAMP)
	$(BIN)/sphinx-build -W --keep-going -b html docs docs/_build/html

clean:
	rm -rf $(VENV) build *.egg-info docs/_build
