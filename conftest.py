# Copyright 2026 mech-catalogue contributors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""Suite-wide test markers, given by where a test lives and what it starts (docs/testing.md).

Every collected test gets exactly one *kind* marker:

- ``e2e``: tests/e2e (agents run as processes, Tendermint, deployments);
- ``faults``: tests/faults (fault injection against a devnet and agents);
- ``devnet``: tests/devnet, and any other test that asks for a fixture starting a real
  process (anvil and the registry stack, kubo; see :data:`PROCESS_FIXTURES`) or that the
  suite lists in :data:`PROCESS_MODULES` (it starts processes itself);
- ``slow``: in-process but heavy: scale tests (200,000 tools, 20,000 ids) and
  property-based (Hypothesis) suites, listed in :data:`SLOW_TESTS`;
- ``unit``: everything else: in-process, no chain, no IPFS daemon, no agent, quick.

``make test-unit`` runs ``-m unit``; ``make test`` (and CI) selects nothing, so runs all.
Marking here, not in the test files, keeps one place to change when a test moves.
"""

import os
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Set

# loads the suite's Hypothesis profile (no wall-clock deadline) for tests/ as well
import mech_catalogue_core.tests  # noqa: F401  # pylint: disable=unused-import
import pytest

ROOT = Path(__file__).parent
KINDS = {
    "unit": "quick in-process tests: no chain, IPFS daemon or agent (make test-unit)",
    "slow": "in-process but heavy: scale and property-based (Hypothesis) tests",
    "devnet": "tests that start anvil, the registry stack or kubo",
    "e2e": "agents run as processes (tests/e2e)",
    "faults": "fault-injection tests (tests/faults)",
}
#: folder (relative to the repository root) -> kind of every test inside it
DIRECTORY_KINDS = {
    Path("tests/e2e"): "e2e",
    Path("tests/faults"): "faults",
    Path("tests/devnet"): "devnet",
}
#: fixtures that start a real process (tests/conftest.py, the library tests' conftest.py)
PROCESS_FIXTURES = frozenset(
    {"devnet", "chain_snapshot", "registered", "new_manifest", "kubo"}
)
#: test modules outside those folders whose tests start processes without a fixture
PROCESS_MODULES = frozenset(
    {
        Path("tests/test_foundation.py"),  # runs install_tools.sh, autonomy, kubo
        Path("tests/test_tutorial.py"),  # runs the tutorial's commands against a devnet
        Path("tests/test_catalogue_page_browser.py"),  # runs `serve` and chromium
        # runs `serve` and chromium
        Path("tests/adversary/test_adv29w_page_description_pushes_offers.py"),
        Path("tests/test_catalogue_page_stranger_text.py"),  # `serve` and chromium
    }
)

_SKILL_TESTS = "packages/mech_catalogue/skills/tool_metadata_abci/tests/"
_LIBRARY_TESTS = "libs/mech-catalogue-core/mech_catalogue_core/tests/"
#: in-process tests that take seconds each (node id prefixes: a module, a class or a test)
SLOW_TESTS = (
    _SKILL_TESTS + "test_bounded_payloads.py::TestBoundedPayloads",
    _SKILL_TESTS + "test_fetch_fuzz.py",
    _SKILL_TESTS + "test_http_fuzz.py",
    _SKILL_TESTS + "test_http_cost.py",
    _LIBRARY_TESTS + "test_properties.py",
    _LIBRARY_TESTS
    + "exporters/test_export_conformance.py::test_chains_of_deep_references",
    _LIBRARY_TESTS + "exporters/test_export_conformance.py::test_generated_manifests",
    _LIBRARY_TESTS + "exporters/test_export_conformance.py::test_every_export",
    # four pip builds of two small projects (about 30 s)
    "tests/test_dist.py::test_the_same_sources_give_byte_identical_wheels",
)

#: tests outside tests/faults that wait out a long timeout or replay a long attack, given
#: the ``long_faults`` marker: ``make test`` skips them, ``make faults-long`` (CI, beside
#: the scale test) runs them with the long fault tests (docs/testing.md, "Order of the
#: files"). Node id prefixes, as :data:`SLOW_TESTS`; each lives under
#: ``LONG_FAULT_PATHS`` of the Makefile.
LONG_TESTS = (
    # waits out the devnet MechMarketplace's minResponseTimeout (60 s), then a period
    "tests/e2e/test_requester_one_agent.py"
    "::test_a_mech_that_never_delivers_times_out_into_the_next_period",
    # four MCP servers started in turn, two accepted requests settled by hand
    "tests/adversary/test_adv29d_offchain_same_nonce.py",
    "tests/adversary/test_adv29d_offchain_resigned.py",
    "tests/adversary/test_offchain_refused_release.py",
    # wait out a --spend-window of 10 s (the second twice, one case each)
    "tests/adversary/test_adv29e_offchain_outstanding_leaves_window.py",
    "tests/adversary/test_adv29g_offchain_late_settlement_window.py",
    # waits out the off-chain post's 10 s deadline, then calls twice more
    "tests/adversary/test_adv29g_offchain_refused_then_settled.py"
    "::test_a_refused_request_the_mech_settles_is_the_call_s_answer[slow]",
    # two paid reads of a 512 KiB answer, tools/list sent all along the second (about
    # 50 s on the code before the fix, 11-28 s after it on a loaded 2-CPU machine)
    "tests/adversary/test_adv29i_answer_markup_stall.py",
    # three MCP servers in turn, one waiting out a request's bound (about 40 s)
    "tests/adversary/test_adv29g_offchain_one_acceptance_freezes_all.py",
    # an agent paying a USDC then an OLAS mech through its Safe, each answered (about
    # 95 s with its agent's start: the longest test left in `make test`, 2026-12-03)
    "tests/e2e/test_requester_token_one_agent.py",
    # waits out the journal write lock's 30 s twice, another process holding it (48 s)
    "tests/adversary/test_adv29e_journal_lock_paid_answer.py",
)
#: the folder of past attacks' reproductions: each of its devnet tests (kind ``devnet``,
#: :func:`kind_of`) is long, as :data:`LONG_TESTS` are, but for :data:`ATTACKS_KEPT`.
#: They are regression guards of found kinds, most starting MCP servers over stdio two or
#: three times on the devnet: 84 files, 2,291 s of worker time in a run of the suite
#: under load on 2026-12-04 (a quarter of it), where their kinds' own unit tests and
#: the no-chain reproductions beside them stay in ``make test``.
ATTACK_REPRODUCTIONS = Path("tests/adversary")
#: the devnet reproductions ``make test`` keeps: the paid-call fuzz test (hostile
#: deliveries, prices and journals: issue #29 asks for it in every run).
ATTACKS_KEPT = (Path("tests/adversary/test_mcp_paid_answer.py"),)
#: long tests that only ``make soak`` runs, not CI's ``make faults-long``: devnet twins
#: of open kinds (strict xfail) whose model-node reproduction runs in ``make test``,
#: and whose own run takes minutes. Node id prefixes, as :data:`LONG_TESTS`; each is
#: long too (given ``long_faults`` and ``soak_only``).
SOAK_ONLY = (
    # 700 contracts on anvil read eight times: 248-446 s on a shared 2-CPU machine
    # (adv29zv2 Q1, left open by fix29zzf: test_adv29zv2_alone_queue_order.py's model
    # twin runs in `make test`)
    "tests/adversary/test_adv29zv2_alone_queue_order_devnet.py",
)
#: the environment variable that runs the ``long_faults`` tests (tests/faults/conftest.py)
LONG_ENV = "RUN_LONG_FAULTS"


def pytest_configure(config: pytest.Config) -> None:
    """Register the kind markers, and ``long_faults`` (also used outside tests/faults).

    :param config: pytest's config.
    """
    for name, meaning in KINDS.items():
        config.addinivalue_line("markers", f"{name}: {meaning}")
    config.addinivalue_line(
        "markers",
        f"long_faults: long fault tests, run with {LONG_ENV}=1 (make faults-long)",
    )
    config.addinivalue_line(
        "markers", "soak_only: long tests make soak runs and make faults-long leaves out"
    )


@pytest.fixture(autouse=True)
def no_terminal_size_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test sees no ``$COLUMNS`` or ``$LINES`` unless it sets them.

    The CLI sizes its tables off a terminal by ``$COLUMNS`` (``output.console_on``). A
    person's shell does not export it, but pytest-xdist's workers had ``COLUMNS=80`` and
    ``LINES=24`` (``make test`` runs with ``-n``), so a test that passed alone cut its
    tables at 80 columns in the full suite. A test that means a width sets it.

    :param monkeypatch: pytest's monkeypatch (restores them after the test).
    """
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)


@pytest.fixture(autouse=True)
def payload_classes_kept() -> Iterator[None]:
    """Fail a test that leaves a payload class unregistered for the tests after it.

    open-autonomy's ``FSMBehaviourBaseCase.setup_class`` empties the process-wide
    ``_MetaPayload.registry`` (``abstract_round_abci/base.py``) until ``teardown_class``;
    code that calls the first without the second makes every later decode of that
    payload raise ``KeyError``, in whichever test happens to run next.

    :yield: nothing; checks after the test.
    """
    # pylint: disable-next=import-outside-toplevel
    from packages.valory.skills.abstract_round_abci.base import _MetaPayload

    before = set(_MetaPayload.registry)
    yield
    lost = before - set(_MetaPayload.registry)
    assert not lost, f"the test left payload classes unregistered: {sorted(lost)}"


def kind_of(item: pytest.Item) -> str:
    """Say which kind a collected test is.

    :param item: the collected test.
    :return: one of :data:`KINDS`.
    """
    path = Path(str(item.fspath)).resolve()
    try:
        relative = path.relative_to(ROOT)
    except ValueError:  # a test outside the repository (pytester): in-process
        return "unit"
    for folder, kind in DIRECTORY_KINDS.items():
        if folder in relative.parents:
            return kind
    if relative in PROCESS_MODULES:
        return "devnet"
    if PROCESS_FIXTURES.intersection(getattr(item, "fixturenames", ())):
        return "devnet"
    node = str(relative) + item.nodeid[len(item.nodeid.split("::")[0]) :]
    if node.startswith(SLOW_TESTS):
        return "slow"
    return "unit"


def is_long(item: pytest.Item) -> bool:
    """Say whether a test outside tests/faults is long: listed or a devnet reproduction.

    :param item: the collected test.
    :return: whether it is one of :data:`LONG_TESTS`, or a devnet test under
        :data:`ATTACK_REPRODUCTIONS` not in :data:`ATTACKS_KEPT`.
    """
    relative = _relative(Path(str(item.fspath)))
    if relative is None:
        return False
    node = str(relative) + item.nodeid[len(item.nodeid.split("::")[0]) :]
    if node.startswith(LONG_TESTS + SOAK_ONLY):
        return True
    return (
        ATTACK_REPRODUCTIONS in relative.parents
        and relative not in ATTACKS_KEPT
        and kind_of(item) == "devnet"
    )


#: the order test files are handed to pytest-xdist workers in (``--dist loadfile``), by the
#: longest kind of test a file holds: a long file handed out last keeps one worker busy
#: while the others idle. In a run of the suite under load (docs/testing.md, "Order of the
#: files") an e2e file took 100-270 s, a devnet file up to 630 s (its MCP servers and
#: paid calls), a fault file up to 80 s, and a unit file seconds.
FILE_ORDER = ("long_faults", "e2e", "devnet", "faults", "slow", "unit")
#: files handed out before every other, longest first: the 20,000-id scale test alone
#: takes most of ``make faults-long`` (seeding 3-10 min, then two periods), so any other
#: file sent before it only makes the run longer.
LONGEST_FILES = (Path("tests/faults/test_scale_four_agents.py"),)


def file_rank(kinds: Iterable[str], path: Optional[Path] = None) -> int:
    """Say where a test file goes: :data:`LONGEST_FILES`, then by :data:`FILE_ORDER`.

    :param kinds: the kinds of its tests (and ``long_faults`` if one of them is).
    :param path: the file, relative to the repository root (None: not one of ours).
    :return: a rank, lower first: a negative one for :data:`LONGEST_FILES`, else the
        index of its longest kind; files of unknown kinds only go last.
    """
    if path in LONGEST_FILES:
        return LONGEST_FILES.index(path) - len(LONGEST_FILES)
    return min(
        (FILE_ORDER.index(kind) for kind in kinds if kind in FILE_ORDER),
        default=len(FILE_ORDER),
    )


def _relative(path: Path) -> Optional[Path]:
    try:
        return path.resolve().relative_to(ROOT)
    except ValueError:
        return None


def pytest_collection_modifyitems(items: List[pytest.Item]) -> None:
    """Give every test its kind marker (see the module docstring); long files go first.

    :data:`LONG_TESTS` get ``long_faults`` too, and are skipped unless ``RUN_LONG_FAULTS=1``.

    Files are ordered by :func:`file_rank`, each whole and in its own order, files of
    one rank in collection order. pytest-xdist re-sorts the files by how many tests they
    hold unless given ``--no-loadscope-reorder`` (``make test`` and ``make soak`` give
    it), which would put the few-test e2e and fault files last.

    :param items: the collected tests.
    """
    kinds: Dict[Path, Set[str]] = {}
    skip_long = pytest.mark.skip(
        reason=f"long test: set {LONG_ENV}=1 or run `make faults-long`"
    )
    for item in items:
        kind = kind_of(item)
        item.add_marker(getattr(pytest.mark, kind))
        if is_long(item):
            item.add_marker(pytest.mark.long_faults)
            if item.nodeid.startswith(SOAK_ONLY):
                item.add_marker(pytest.mark.soak_only)
            if os.environ.get(LONG_ENV) != "1":
                item.add_marker(skip_long)
        of_file = kinds.setdefault(item.path, set())
        of_file.add(kind)
        if "long_faults" in item.keywords:
            of_file.add("long_faults")
    ranks = {path: file_rank(of, _relative(path)) for path, of in kinds.items()}
    items.sort(key=lambda item: ranks[item.path])
