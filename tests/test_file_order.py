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


"""The order test files are handed to pytest-xdist workers in (root ``conftest.py``).

With ``--dist loadfile`` a long file handed out last keeps one worker busy while the
others idle, so the files that take longest go first (docs/testing.md, "Order of the
files").
"""

from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

from conftest import (
    ATTACK_REPRODUCTIONS,
    ATTACKS_KEPT,
    FILE_ORDER,
    LONG_ENV,
    LONG_TESTS,
    LONGEST_FILES,
    ROOT,
    file_rank,
    pytest_collection_modifyitems,
)


@pytest.mark.parametrize(
    "longer, shorter",
    [
        ({"long_faults", "faults"}, {"e2e"}),
        ({"e2e"}, {"devnet"}),
        ({"devnet"}, {"faults"}),
        ({"faults"}, {"slow"}),
        ({"slow"}, {"unit"}),
    ],
)
def test_longer_kinds_go_first(longer: set, shorter: set) -> None:
    """Each kind of file is handed out before the quicker kinds."""
    assert file_rank(longer) < file_rank(shorter)


def test_a_file_goes_where_its_longest_test_puts_it() -> None:
    """A file of unit tests with one devnet test is ranked as a devnet file."""
    assert file_rank({"unit", "devnet"}) == file_rank({"devnet"})
    assert file_rank({"unit", "slow", "e2e"}) == FILE_ORDER.index("e2e")


def test_a_file_of_no_known_kind_goes_last() -> None:
    """Kinds the order does not know (or none) put a file after every known kind."""
    assert file_rank({"something-new"}) == len(FILE_ORDER)
    assert file_rank(set()) == len(FILE_ORDER)
    assert file_rank({"something-new", "unit"}) == FILE_ORDER.index("unit")


def test_the_longest_files_go_before_every_kind() -> None:
    """The scale test's file goes before other long fault files, which it outlasts."""
    scale = Path("tests/faults/test_scale_four_agents.py")
    assert scale in LONGEST_FILES
    assert (ROOT / scale).is_file()
    assert file_rank({"long_faults"}, scale) < file_rank({"long_faults"})
    assert file_rank({"unit"}, scale) < file_rank({"long_faults"})


def test_another_file_of_the_same_kinds_keeps_its_kind_rank() -> None:
    """Only the listed files are moved: another path ranks by its kinds alone."""
    other = Path("tests/faults/test_agent_faults.py")
    assert file_rank({"long_faults", "faults"}, other) == FILE_ORDER.index(
        "long_faults"
    )
    assert file_rank({"e2e"}, None) == FILE_ORDER.index("e2e")


def test_each_long_test_exists_where_make_faults_long_looks() -> None:
    """Every LONG_TESTS entry is a file (and test, and case) under LONG_FAULT_PATHS.

    A renamed or moved test would silently leave both ``make test`` and CI.
    """
    line = next(
        text
        for text in (ROOT / "Makefile").read_text(encoding="utf-8").splitlines()
        if text.startswith("LONG_FAULT_PATHS :=")
    )
    paths = [Path(folder) for folder in line.split(":=", 1)[1].split()]
    assert Path("tests/faults") in paths
    for entry in LONG_TESTS:
        file, _, name = entry.partition("::")
        assert (ROOT / file).is_file(), entry
        assert any(folder in Path(file).parents for folder in paths), entry
        text = (ROOT / file).read_text(encoding="utf-8")
        function, _, parameter = name.partition("[")  # one case: name[id]
        if function:
            assert f"def {function}(" in text, entry
        if parameter:  # an id pytest makes from a string value: the value, quoted
            assert f'"{parameter.removesuffix("]")}"' in text, entry


PAID = "tests/e2e/test_requester_one_agent.py::test_a_request_is_paid"


class _Item:  # the parts of a pytest.Item that the root conftest reads
    def __init__(self, nodeid: str) -> None:
        self.nodeid = nodeid
        self.path = ROOT / nodeid.split("::")[0]
        self.fspath = str(self.path)
        self.fixturenames: Tuple[str, ...] = ()
        self.keywords: Dict[str, Any] = {}
        self.marks: List[Any] = []

    def add_marker(self, mark: Any) -> None:
        """Keep a marker, as ``pytest.Item.add_marker`` does (its name in the keywords).

        :param mark: the marker.
        """
        self.marks.append(mark)
        self.keywords[mark.name] = mark


def _collected(monkeypatch: pytest.MonkeyPatch, run_long: Optional[str]) -> List[_Item]:
    if run_long is None:
        monkeypatch.delenv(LONG_ENV, raising=False)
    else:
        monkeypatch.setenv(LONG_ENV, run_long)
    items = [
        _Item("tests/test_cli.py::test_x"),
        _Item(LONG_TESTS[0]),
        _Item(PAID),
    ]
    pytest_collection_modifyitems(items)  # type: ignore[arg-type]
    return items


@pytest.mark.parametrize("run_long", [None, "0", "1"])
def test_a_listed_long_test_is_long_faults_and_runs_only_when_asked(
    monkeypatch: pytest.MonkeyPatch, run_long: Optional[str]
) -> None:
    """A LONG_TESTS test is ``long_faults``, skipped unless RUN_LONG_FAULTS=1; others not."""
    items = _collected(monkeypatch, run_long)
    by_id = {item.nodeid: item for item in items}
    long_one = by_id[LONG_TESTS[0]]
    assert "long_faults" in long_one.keywords and "e2e" in long_one.keywords
    assert ("skip" in long_one.keywords) == (run_long != "1")
    for other in ("tests/test_cli.py::test_x", PAID):
        assert "long_faults" not in by_id[other].keywords
        assert "skip" not in by_id[other].keywords
    # its file still goes before the unit file
    assert [item.nodeid for item in items][-1] == "tests/test_cli.py::test_x"


@pytest.mark.parametrize("run_long", [None, "1"])
def test_a_devnet_reproduction_of_an_attack_is_long_but_the_paid_call_fuzz(
    monkeypatch: pytest.MonkeyPatch, run_long: Optional[str]
) -> None:
    """Devnet tests under tests/adversary go to ``make faults-long``; the fuzz test stays.

    The same folder's tests without a chain stay in ``make test``.
    """
    if run_long is None:
        monkeypatch.delenv(LONG_ENV, raising=False)
    else:
        monkeypatch.setenv(LONG_ENV, run_long)
    on_devnet = _Item("tests/adversary/test_adv29zz_example.py::test_on_the_devnet")
    on_devnet.fixturenames = ("devnet",)
    no_chain = _Item("tests/adversary/test_adv29zz_example.py::test_no_chain")
    fuzz = _Item(f"{ATTACKS_KEPT[0]}::test_hostile")
    fuzz.fixturenames = ("devnet",)
    elsewhere = _Item("tests/devnet/test_mcp_server.py::test_x")
    elsewhere.fixturenames = ("devnet",)
    pytest_collection_modifyitems([on_devnet, no_chain, fuzz, elsewhere])  # type: ignore[list-item]
    assert "long_faults" in on_devnet.keywords
    assert ("skip" in on_devnet.keywords) == (run_long != "1")
    for kept in (no_chain, fuzz, elsewhere):
        assert "long_faults" not in kept.keywords, kept.nodeid
        assert "skip" not in kept.keywords, kept.nodeid


def test_the_kept_reproductions_exist_and_the_folder_is_where_make_faults_long_looks() -> (
    None
):
    """A renamed fuzz file or folder would silently leave ``make test`` or CI."""
    line = next(
        text
        for text in (ROOT / "Makefile").read_text(encoding="utf-8").splitlines()
        if text.startswith("LONG_FAULT_PATHS :=")
    )
    assert str(ATTACK_REPRODUCTIONS) in line.split(":=", 1)[1].split()
    for kept in ATTACKS_KEPT:
        assert (ROOT / kept).is_file()
        assert ATTACK_REPRODUCTIONS in kept.parents
