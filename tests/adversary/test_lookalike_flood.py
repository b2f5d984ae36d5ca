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

"""Thousands of names sharing one skeleton cost linear work, not quadratic.

Attack: a manifest may hold 1,000 tools, and a name may end in invisible format
characters (the parser accepts them; ``refresh_catalogue`` then adds a
``lookalike_tool_name`` warning). So one service can register 1,000 distinct names that
all share the skeleton of an honest tool (``prediction-online`` + a different run of
U+200B/U+200C/U+200D/U+2060 each). ``lookalike_problems`` sorted the whole group again for
every name in it: measured on this machine (one core, ``time.process_time``), 1,000 names
0.34 s, 2,000 1.55 s, 4,000 6.6 s, 8,000 30.6 s, so about 16 such manifests kept
``FetchManifestsBehaviour`` on the agent's loop past the 120 s fetch round every period.
After the fix (each group sorted once): 0.01 / 0.02 / 0.03 / 0.07 s. The tests count the
elements sorted (no wall-clock timing) and check the warnings are word for word those of
the former definition (they enter the catalogue digest).
"""

import builtins
import json
from typing import Any, Dict, Iterable, List

import pytest
from mech_catalogue_core.catalogue import (
    lookalikes,
)
from mech_catalogue_core.catalogue.lookalikes import (
    MAX_LISTED,
    has_format_characters,
    lookalike_problems,
    skeleton,
    with_lookalike_warnings,
)
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.model.catalogue import (
    Mech,
    MechRef,
)
from mech_catalogue_core.model.problems import (
    LOOKALIKE_TOOL_NAME,
)

# pylint: disable=protected-access  # the former messages are rebuilt with the same quoting

INVISIBLE = ("\u200b", "\u200c", "\u200d", "\u2060")
HONEST = "prediction-online"


def twin(base: str, index: int) -> str:
    """A distinct name with the skeleton of ``base``: an invisible suffix encoding ``index``.

    :param base: the visible name.
    :param index: makes it distinct.
    :return: the name.
    """
    suffix = ""
    while True:
        suffix += INVISIBLE[index % 4]
        index //= 4
        if not index:
            return base + suffix


def former_messages(names: List[str]) -> Dict[str, str]:
    """The warnings as the former (quadratic) definition wrote them.

    :param names: distinct tool names.
    :return: name -> message.
    """
    groups: Dict[str, set] = {}
    for name in names:
        groups.setdefault(skeleton(name), set()).add(name)
    found = {}
    for name in names:
        twins = sorted(groups[skeleton(name)] - {name})
        invisible = has_format_characters(name)
        if not twins and not invisible:
            continue
        shown = ", ".join(lookalikes._quoted(t) for t in twins[:MAX_LISTED])
        more = f" and {len(twins) - MAX_LISTED} more" if len(twins) > MAX_LISTED else ""
        found[name] = (
            f"the tool name {lookalikes._quoted(name)} "
            + (f"looks like {shown}{more} in the catalogue" if twins else "")
            + (" and " if twins and invisible else "")
            + ("holds invisible format characters" if invisible else "")
            + "; a caller may pick the wrong tool. Use a distinct, visible name."
        )
    return found


@pytest.fixture(name="sorted_elements")
def fixture_sorted_elements(monkeypatch: pytest.MonkeyPatch) -> List[int]:
    """Count the elements the lookalikes module sorts.

    :param monkeypatch: pytest's monkeypatch.
    :return: one entry per ``sorted`` call: how many elements it sorted.
    """
    calls: List[int] = []

    def counting(items: Iterable[Any], **kwargs: Any) -> List[Any]:
        result = builtins.sorted(items, **kwargs)
        calls.append(len(result))
        return result

    monkeypatch.setattr(lookalikes, "sorted", counting, raising=False)
    return calls


def test_the_parser_refuses_a_thousand_invisible_twins() -> None:
    """The attack's names hold invisible characters: each is refused at parse (adv29yt).

    (Before adv29yt the manifest was valid: 1,000 tools, no problem at parse time.)
    """
    names = [twin(HONEST, i) for i in range(1000)]
    result = parse_manifest(
        json.dumps({"name": "a", "description": "d", "tools": names}).encode()
    )
    assert result.manifest is not None and not result.manifest.tools
    # 100 listed (the cap per manifest), the other 900 counted
    assert {p.code for p in result.errors} == {"invalid_tool_name"}
    assert "invalid_tool_name 900" in result.problems[-1].message
    assert len({skeleton(n) for n in names} | {skeleton(HONEST)}) == 1


@pytest.mark.parametrize("count", [2000, 8000])
def test_one_skeleton_group_is_sorted_once(
    count: int, sorted_elements: List[int]
) -> None:
    """``count`` names of one skeleton: at most 2 x ``count`` elements sorted in all.

    Before the fix: ``count`` sorts of ``count - 1`` elements (4 million and 64 million).

    :param count: names sharing the honest tool's skeleton.
    :param sorted_elements: the counter.
    """
    names = [HONEST] + [twin(HONEST, i) for i in range(count)]
    found = lookalike_problems(names)
    assert len(found) == count + 1
    assert sum(sorted_elements) <= 2 * (count + 1)
    honest = found[HONEST].message
    assert f"and {count - MAX_LISTED} more" in honest


def test_warnings_are_those_of_the_former_definition() -> None:
    """Several groups, invisible-only names, lone names: the same messages word for word."""
    names = sorted(
        {HONEST, "sell", "se\u200bll", "buy", "b\u0443y", "alone", "z\u200b"}
        | {twin(HONEST, i) for i in range(12)}
        | {twin("sell", i) for i in range(3)}
    )
    found = lookalike_problems(names)
    assert {n: p.message for n, p in found.items()} == former_messages(names)
    assert all(p.code == LOOKALIKE_TOOL_NAME for p in found.values())
    assert "alone" not in found and "z\u200b" in found


def test_an_attacking_mech_does_not_change_the_honest_mechs_tools(
    sorted_elements: List[int],
) -> None:
    """Through ``with_lookalike_warnings``: the honest tool kept; work linear."""
    honest = parse_manifest(
        json.dumps({"name": "h", "description": "d", "tools": [HONEST]}).encode()
    )
    attacks = [
        parse_manifest(
            json.dumps(
                {
                    "name": f"a{m}",
                    "description": "d",
                    "tools": [twin(HONEST, m * 1000 + i) for i in range(1000)],
                }
            ).encode()
        )
        for m in range(4)
    ]
    mechs = [
        Mech.from_manifest(
            MechRef(100, "complementary_service_metadata", "0x" + "ab" * 20, i + 1),
            result.manifest,
            result.problems,
        )
        for i, result in enumerate([honest, *attacks])
    ]
    out = with_lookalike_warnings(mechs)
    assert [t.name for t in out[0].tools] == [HONEST]
    # the twins are refused at parse (adv29yt), so nothing looks like the honest tool
    assert not out[0].problems and not any(m.tools for m in out[1:])
    assert sum(sorted_elements) <= 3 * 4001
