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

"""docs/running.md's embedding walk-through quotes the requester skill's real code.

Every fenced Python block of the section "Embedding the catalogue in a service" whose
first line is ``# <path>`` must appear, character for character (after removing the
block's list indentation), in that file; the transition mapping it quotes must be the
one the composition module builds, every final state mapped.
"""

import ast
import re
import textwrap
from pathlib import Path
from typing import List, Tuple

import pytest

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "running.md"
SECTION = "## Embedding the catalogue in a service"
COMPOSITION = "packages/mech_catalogue/skills/requester_chained_abci/composition.py"
BLOCK = re.compile(r"^( *)```python\n(.*?)^\1```", re.MULTILINE | re.DOTALL)


def section_text() -> str:
    """The walk-through's text, from its heading to the next ``## `` heading.

    :return: the text.
    """
    text = DOC.read_text()
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    return text[start : end if end != -1 else len(text)]


def excerpts(text: str) -> List[Tuple[str, str]]:
    """The quoted blocks: ``(path, code)`` for each block starting ``# <path>``.

    :param text: the section's text.
    :return: the blocks, in order.
    """
    found = []
    for match in BLOCK.finditer(text):
        code = textwrap.dedent(match.group(2))
        first, _, rest = code.partition("\n")
        if first.startswith("# ") and first[2:].endswith(".py"):
            found.append((first[2:].strip(), rest.rstrip("\n")))
    return found


def test_every_quoted_block_is_the_file_s_own_text() -> None:
    """A block changed in the doc or in the code (and not in both) fails here."""
    quoted = excerpts(section_text())
    assert len(quoted) >= 5, "the walk-through lost its quoted code"
    for path, code in quoted:
        source = (REPO / path).read_text()
        assert (
            code in source
        ), f"docs/running.md quotes {path}, which no longer says:\n{code}"


def test_the_quoted_mapping_is_the_composition_s_whole_mapping() -> None:
    """The doc shows the module's ``abci_app_transition_mapping``, every key of it."""
    mapping = next(
        code
        for path, code in excerpts(section_text())
        if path == COMPOSITION and "abci_app_transition_mapping" in code
    )
    tree = ast.parse(mapping)
    assigned = next(
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.AnnAssign)
        and getattr(node.target, "id", "") == "abci_app_transition_mapping"
    )
    assert isinstance(assigned.value, ast.Dict)
    quoted_keys = {ast.unparse(key) for key in assigned.value.keys if key is not None}
    pytest.importorskip(
        "packages.valory.skills.mech_interact_abci",
        reason="mech-interact v0.32.3's skill is not in packages/: provide its released "
        "packages/ folder at ../shared/third_party/mech-interact-v0.32.3/packages and run "
        "`make sync`",
    )
    # pylint: disable=import-outside-toplevel
    from packages.mech_catalogue.skills.requester_chained_abci import composition

    real = composition.abci_app_transition_mapping
    assert len(quoted_keys) == len(real)
    assert {key.rsplit(".", 1)[-1] for key in quoted_keys} == {
        state.__name__ for state in real
    }
