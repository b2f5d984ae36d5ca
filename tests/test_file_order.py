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

import pytest

from conftest import FILE_ORDER, LONGEST_FILES, ROOT, file_rank


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
