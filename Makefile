# Targets follow Valory's repositories (formatters, code-checks, generators,
# common-checks-1/2). Every tool runs from the project environment: PYTHON may point at
# another interpreter (tox passes its own), its bin/ folder must hold the tools.
PYTHON ?= .venv/bin/python
BIN := $(dir $(PYTHON))
AUTONOMY := $(BIN)autonomy
# The installed open-autonomy wheel also ships a top-level `packages` package; the
# repository's packages/ must come first or `packages.mech_catalogue` is not found and
# `autonomy check-packages` resolves imports against the wheel.
# The domain library (libs/mech-catalogue-core) is installed editable by `setup`; it is on the
# path here too so that the tools find its tests package, which its wheel leaves out.
LIBRARY := libs/mech-catalogue-core
export PYTHONPATH := $(CURDIR):$(CURDIR)/$(LIBRARY)

# Our code only: third-party packages (packages/valory, packages/open_aea) are synced, and
# tests/fixtures/ (and examples/tools, the tutorial's sample tool packages) hold inputs shaped
# like other people's code (mech tool sources).
OUR_CODE := $(LIBRARY)/mech_catalogue_core mech_catalogue_cli scripts tests packages/mech_catalogue
FIXTURES := */tests/fixtures/*
OUR_SKILLS := $(patsubst %/skill.yaml,%,$(wildcard packages/mech_catalogue/skills/*/skill.yaml))
# The common handlers and dialogues of an ABCI skill, as Valory's repositories check them.
COMMON := abci http contract_api ledger_api signing
THIRD_PARTY_SKILLS := abstract_abci abstract_round_abci registration_abci reset_pause_abci \
	transaction_settlement_abci termination_abci
PYTEST_ARGS ?=
# Every target that runs the project's tools needs `setup` (idempotent: about a second when
# done), so it works on a fresh clone. The static-check and generator targets tox also runs
# get it only with the default PYTHON: tox passes its own interpreter (PYTHON={envpython})
# and prepares that environment itself, so it must not build .venv.
VENV_SETUP := $(if $(filter .venv/bin/python,$(PYTHON)),setup)
# Licence headers (Google's addlicense, pinned in scripts/toolchain.py, built by `make tools`).
# Scope: our Python and shell sources; not the synced third-party packages, test fixtures,
# the devnet's Solidity (its bytecode must not change), nor YAML/JSON (autonomy rewrites
# component YAML on `packages lock`; JSON has no comments).
ADDLICENSE ?= .tools/bin/addlicense
COPYRIGHT := -l apache -c "mech-catalogue contributors" -y 2026
COPYRIGHT_SCOPE := $(LIBRARY)/mech_catalogue_core mech_catalogue_cli scripts tests packages/mech_catalogue conftest.py
COPYRIGHT_IGNORE := $(addprefix -ignore ,'**/tests/fixtures/**' 'scripts/devnet/fixtures/**' \
	'tests/devnet/data/**' '**/*.yaml' '**/*.yml' '**/*.json' '**/*.md' '**/*.txt' '**/*.sol' \
	'**/*.html' '**/*.js')

.PHONY: e2e e2e-4 setup venv tools sync dist formatters code-checks black-check isort-check flake8 mypy pylint \
	darglint import-check copyright check-copyright generators common-checks-1 common-checks-2 test test-unit pytest devnet-up devnet-down run

## Environment -------------------------------------------------------------------------
setup:  ## .venv + the mech-catalogue CLI (editable) + pinned tools + third-party packages (idempotent)
	bash scripts/setup.sh

venv:  ## .venv alone (Python 3.11, no requirements installed): what `make dist` needs
	bash scripts/setup.sh --venv-only

tools:  ## anvil, solc, kubo, tendermint, addlicense into .tools/
	bash scripts/install_tools.sh

sync: setup  ## third-party AEA packages into packages/, verified against packages.json (setup runs it too)
	$(PYTHON) -m scripts.sync_packages

## Formatting and static checks ------------------------------------------------------------
formatters: $(VENV_SETUP)
	$(PYTHON) -m black --extend-exclude '/tests/fixtures/' $(OUR_CODE)
	$(PYTHON) -m isort --extend-skip-glob '$(FIXTURES)' $(OUR_CODE)

code-checks: $(VENV_SETUP) black-check isort-check flake8 mypy pylint darglint import-check check-copyright

black-check:
	$(PYTHON) -m black --check --extend-exclude '/tests/fixtures/' $(OUR_CODE)

isort-check:
	$(PYTHON) -m isort --check-only --extend-skip-glob '$(FIXTURES)' $(OUR_CODE)

flake8:
	$(PYTHON) -m flake8 $(OUR_CODE)

mypy:
	$(PYTHON) -m mypy $(OUR_CODE)

pylint:
	$(PYTHON) -m pylint $(OUR_CODE)

darglint:
	$(BIN)darglint $$(find $(LIBRARY)/mech_catalogue_core mech_catalogue_cli scripts packages/mech_catalogue -name '*.py' -not -path '$(FIXTURES)')

# Imports point one way: the library (mech_catalogue_core) imports neither the framework,
# the skills, the CLI, scripts/ nor tests/; the skills do not import the CLI; product code
# imports neither scripts/ nor tests/. import-linter's contracts in pyproject.toml.
import-check:
	$(BIN)lint-imports --no-cache

# Apache-2.0 header on every file in scope that has none (files with one are left alone).
copyright:
	@test -x $(ADDLICENSE) || { echo "copyright: $(ADDLICENSE) is missing; run \`make tools\`"; exit 1; }
	$(ADDLICENSE) $(COPYRIGHT) $(COPYRIGHT_IGNORE) $(COPYRIGHT_SCOPE)

# Fails listing each file in scope without a licence header (part of code-checks, so CI).
check-copyright:
	@test -x $(ADDLICENSE) || { echo "check-copyright: $(ADDLICENSE) is missing; run \`make tools\`"; exit 1; }
	@$(ADDLICENSE) -check $(COPYRIGHT) $(COPYRIGHT_IGNORE) $(COPYRIGHT_SCOPE) || { \
		echo "check-copyright: the files above have no licence header; run \`make copyright\`"; exit 1; }

## Generated files ----------------------------------------------------------------------
# New packages found by `packages lock` are ours, so the prompt is answered `dev`.
generators: $(VENV_SETUP)
	$(AUTONOMY) analyse docstrings --update
	@for skill in $(OUR_SKILLS); do \
		if [ -f $$skill/rounds.py ] || [ -f $$skill/composition.py ]; then \
			echo "fsm-specs: $$skill"; \
			$(AUTONOMY) analyse fsm-specs --package $$skill --update || exit 1; \
		fi; \
	done
	yes dev | $(AUTONOMY) packages lock

## Package consistency (offline) ---------------------------------------------------------
common-checks-1: $(VENV_SETUP)
	$(AUTONOMY) packages lock --check
	$(AUTONOMY) check-packages

common-checks-2: $(VENV_SETUP)
	$(AUTONOMY) analyse docstrings
	@if [ -z "$(OUR_SKILLS)" ]; then \
		echo "common-checks-2: no skill.yaml in packages/mech_catalogue/skills yet, handlers/dialogues skipped"; \
	else \
		$(AUTONOMY) analyse handlers $(addprefix -h ,$(COMMON)) $(addprefix -i ,$(THIRD_PARTY_SKILLS)) && \
		$(AUTONOMY) analyse dialogues $(addprefix -d ,$(COMMON)) $(addprefix -i ,$(THIRD_PARTY_SKILLS)); \
	fi

## Distributions -------------------------------------------------------------------------
# The wheels of the library (libs/mech-catalogue-core) and the CLI (pyproject.toml) into
# dist/ (scripts/dist.py: `pip wheel --no-deps` of each, from a copy of its files). `pip
# install dist/*.whl` gives a working `mech-catalogue` outside any checkout (README.md,
# "User quick start"); tests/devnet/test_installed_wheels.py checks it in `make test`.
# Only the venv is needed (pip builds pure-Python wheels): not setup's Go builds of kubo and
# Tendermint, npm tools, requirements or package sync. With another PYTHON (tox), nothing.
dist: $(if $(filter .venv/bin/python,$(PYTHON)),venv)
	$(PYTHON) -m scripts.dist --out dist

## Tests --------------------------------------------------------------------------------
# The quick in-process tests alone (marker `unit`, given by conftest.py; docs/testing.md).
test-unit: setup
	$(PYTHON) -m pytest tests packages/mech_catalogue $(LIBRARY) -m unit -q $(PYTEST_ARGS)

# `make test` is the one command CI runs (.ci/run): it prepares a fresh clone first.
test: setup
	@$(MAKE) --no-print-directory pytest

# The suite runs in PYTEST_WORKERS pytest-xdist processes, a test file at a time (a file
# shares one devnet), long files first (as `make soak`, which keeps it green run after
# run): most of a devnet test is waiting on anvil, kubo or an agent, so three workers
# on two cores take about half the time of one (docs/testing.md). PYTEST_WORKERS=0 runs
# it in this process (e.g. to debug with -s or pdb).
PYTEST_WORKERS ?= 3
PYTEST_PARALLEL = $(if $(filter 0,$(PYTEST_WORKERS)),,-n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder)

# pytest's exit code 5 means "no tests collected"; make would flatten it to 2, so it is
# reported here as such instead of failing the run.
pytest:
	@$(PYTHON) -m pytest tests packages/mech_catalogue $(LIBRARY) $(PYTEST_PARALLEL) $(PYTEST_ARGS); status=$$?; \
	if [ $$status -eq 5 ]; then echo "pytest: no tests collected"; exit 0; fi; exit $$status

## Running ------------------------------------------------------------------------------
devnet-up: setup
	$(PYTHON) -m scripts.devnet up

devnet-down:
	$(PYTHON) -m scripts.devnet down

# The main job: the seeded devnet, the service's agent(s) and the catalogue they serve,
# shown live until Ctrl-C (which stops agents, Tendermint nodes and devnet). AGENTS=4: four
# agents, each with its own Tendermint node (docs/running.md).
AGENTS ?= 1
# tool_metadata (the catalogue service) or requester (catalogue -> tool choice -> paid mech request)
SERVICE ?= tool_metadata
run: setup
	$(PYTHON) -m scripts.run_local --agents $(AGENTS) --service $(SERVICE)

# End-to-end: one agent (mock Tendermint) over periods against the devnet, and
# `autonomy deploy build` (docker-compose, Kubernetes). Part of `make test` too.
e2e: setup
	$(PYTHON) -m pytest tests/e2e $(PYTEST_ARGS)

# Four agents with four real Tendermint nodes reaching consensus (about 1.5-2.5 minutes);
# skipped unless selected, so not part of `make test`.
e2e-4: setup
	$(PYTHON) -m pytest tests/e2e -m e2e4 $(PYTEST_ARGS)

## Benchmarks and long suites (issue 7) ---------------------------------------------------
# The sync benchmark: ours vs mech-client 0.24.1 vs the floor on a devnet of 100, 1,000 and
# 10,000 mechs (mech-client up to 1,000; about 20 minutes); prints a table and writes
# docs/benchmarks.md. mech-client is read from a throwaway
# venv (MECH_CLIENT_PYTHON); without it a faithful re-implementation runs, marked as such.
MECH_CLIENT_PYTHON ?= $(HOME)/.cache/mechclient/venv/bin/python
bench: setup
	$(PYTHON) scripts/bench_sync.py --mech-client-python $(MECH_CLIENT_PYTHON)

bench-mech-client-venv: setup  ## mech-client 0.24.1 in its own venv (its pins conflict with ours)
	$(PYTHON) -m venv $(dir $(MECH_CLIENT_PYTHON)).. && $(MECH_CLIENT_PYTHON) -m pip install -q mech-client==0.24.1

# Every fault test, the long ones included, in one process (`make test` runs the fast
# subset; .ci/run runs `faults-long` for the rest).
faults: setup
	RUN_LONG_FAULTS=1 $(PYTHON) -m pytest tests/faults $(PYTEST_ARGS)

# The long fault tests alone (marker `long_faults`): what `make test` leaves out of
# tests/faults, and the long tests elsewhere that conftest.py lists (LONG_TESTS: a
# timeout waited out, a long attack replayed), so CI (.ci/run) runs this beside `make test`
# instead of every fault test twice. FAULT_WORKERS pytest-xdist workers, a test file at a
# time (as `make soak` runs them): the 20,000-id scale test goes first and takes one worker
# for most of its run; the attacks' devnet replays, now most of the run and mostly waiting
# on timeouts, anvil and kubo, share the other two (docs/testing.md, "Order of the
# files"). FAULT_WORKERS=0 runs them in this process. LONG_FAULT_PATHS: the folders
# holding a `long_faults` test. The `soak_only` ones (conftest.py SOAK_ONLY: minutes-long
# devnet twins of open kinds) are left to `make soak`.
FAULT_WORKERS ?= 3
FAULT_PARALLEL = $(if $(filter 0,$(FAULT_WORKERS)),,-n $(FAULT_WORKERS) --dist loadfile --no-loadscope-reorder)
LONG_FAULT_PATHS := tests/faults tests/e2e tests/adversary
faults-long: setup
	RUN_LONG_FAULTS=1 $(PYTHON) -m pytest $(LONG_FAULT_PATHS) -m "long_faults and not soak_only" $(FAULT_PARALLEL) $(PYTEST_ARGS)

# The devnet and fault tests (the long ones included) SOAK_RUNS times in a row: a green run
# is trusted only if it stays green (issue 18). SOAK_WORKERS pytest-xdist workers, each
# running a whole test file at a time (a file shares one devnet), long files first (the root
# conftest.py orders them; --no-loadscope-reorder stops pytest-xdist from re-sorting the
# files by how many tests they hold, which handed the long one-test files out last and left
# one worker running them while the others idled). Stops at the first failing run; each
# run's log, with its slowest tests, is kept in .run/soak/.
SOAK_RUNS ?= 20
SOAK_WORKERS ?= 3
soak: setup
	@mkdir -p .run/soak
	@for run in $$(seq $(SOAK_RUNS)); do \
		RUN_LONG_FAULTS=1 $(PYTHON) -m pytest tests packages/mech_catalogue $(LIBRARY) -m "devnet or faults" \
			-n $(SOAK_WORKERS) --dist loadfile --no-loadscope-reorder --durations=15 \
			-q -p no:cacheprovider $(PYTEST_ARGS) \
			> .run/soak/run-$$run.log 2>&1; status=$$?; \
		echo "soak run $$run of $(SOAK_RUNS): $$(tail -n 1 .run/soak/run-$$run.log)"; \
		[ $$status -eq 0 ] || exit 1; \
	done
.PHONY: bench bench-mech-client-venv faults faults-long soak

## Mutation testing (issue 18, docs/testing.md) ---------------------------------------------
# mutmut 3 (requirements-mutation.txt, installed here on first use) mutates the modules every
# period runs ([mutmut] in setup.cfg), runs the unit tests that reach each mutated function,
# and scripts/mutation_report.py prints the kill rate per module and every survivor (fails
# under 90% killed).
# MUTANTS narrows the run, e.g. MUTANTS='mech_catalogue_core.ipfs.cid.*'. Slow: 2-5 hours for all on
# 2 shared CPUs. Named mutants are re-run even when they have a result.
MUTANTS ?=
# mutmut's parallel children; lower it on a machine shared with other runs.
MUTATION_CHILDREN ?= $(shell nproc)
mutation: setup
	@$(PYTHON) -m mutmut --version >/dev/null 2>&1 || \
		$(PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements-mutation.txt
	@mkdir -p mutants && ln -sfn $(CURDIR)/.tools mutants/.tools  # the tests' kubo
	$(PYTHON) -m mutmut run --max-children $(MUTATION_CHILDREN) $(MUTANTS) || true
	$(PYTHON) scripts/mutation_report.py --min 90
.PHONY: mutation
