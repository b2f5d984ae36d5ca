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

"""An MCP name, once served, keeps standing for its mech tool (adv29v).

Catalogues come from the real parser and exporter (manifests written here); the server
runs without a key, so nothing can be paid whatever happens.
"""

import json
from pathlib import Path
from typing import Dict, List

import anyio
from mech_catalogue_core.exporters.names import (
    MCP_TOOL_RULE,
    export_names,
    sanitise_name,
)

from mech_catalogue_cli.mcp_server.offers import Tenure
from mech_catalogue_cli.mcp_server.pins import load_pins, save_pins
from mech_catalogue_cli.mcp_server.served_names import ServedNames
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer
from mech_catalogue_cli.mcp_server.source import (
    ServedCatalogue,
    ServedTool,
    served_from_catalogue,
)
from tests.test_contract_guards import manifest
from tests.test_mcp_source import _FixedSource, _priced_catalogue, _typed

HONEST = "tide table"
TAGGED = sanitise_name(HONEST, MCP_TOOL_RULE)


def _served(mechs: Dict[int, List[str]]) -> ServedCatalogue:
    """Mech id -> the tool names it declares (each with one argument ``port``)."""
    return served_from_catalogue(
        _priced_catalogue(
            {
                i: manifest(*(_typed(n, "port") for n in names))
                for i, names in mechs.items()
            }
        )
    )


def _names(served: ServedCatalogue) -> Dict[str, str]:
    return {tool.name: tool.mech_tool for tool in served.tools}


def test_a_literal_copy_of_a_tagged_name_is_tagged_itself() -> None:
    """Without any memory: the tag belongs to the name it was computed from."""
    mapping = export_names([TAGGED, HONEST, "plain"], MCP_TOOL_RULE)
    assert mapping[HONEST] == TAGGED
    assert mapping[TAGGED] not in (TAGGED, HONEST)
    assert mapping["plain"] == "plain"


def test_kept_names_are_honoured_and_held_ones_given_to_none() -> None:
    """``kept`` wins over a literal name; ``held`` is skipped; an invalid kept is not."""
    mapping = export_names(
        ["a", "b c", "d"],
        MCP_TOOL_RULE,
        kept={"b c": "a", "d": "not valid!"},
        held=frozenset({"d"}),
    )
    assert mapping["b c"] == "a"  # served as "a" before: keeps it
    assert mapping["a"] not in ("a", "d")  # the literal newcomer is tagged
    assert mapping["d"] not in ("d", "not valid!")
    assert len(set(mapping.values())) == 3


def test_a_served_name_keeps_its_tool_across_reads() -> None:
    """Mech 1 serves ``tide table``; mech 2 then registers its served name literally."""
    names = ServedNames()
    before = names.assign(_served({1: [HONEST]}))
    assert _names(before) == {TAGGED: HONEST}
    after = names.assign(_served({1: [HONEST], 2: [TAGGED]}))
    assert _names(after)[TAGGED] == HONEST
    [newcomer] = [t for t in after.tools if t.mech_tool == TAGGED]
    assert newcomer.name != TAGGED
    assert newcomer.tool["name"] == newcomer.name
    assert TAGGED in newcomer.tool["description"]  # the mech tool is named


def test_a_gone_tools_name_is_given_to_no_other_until_it_returns() -> None:
    """Mech 1 leaves: its name is held (not the stranger's); back, it has it again."""
    names = ServedNames()
    names.assign(_served({1: [HONEST]}))
    alone = names.assign(_served({2: [TAGGED]}))
    assert TAGGED not in _names(alone)  # the stranger's literal name is held
    [stranger] = alone.tools
    assert stranger.tool["name"] == stranger.name
    assert stranger.tool["description"].endswith(f"(mech tool name: {TAGGED})")
    assert names.stood_for(TAGGED) == HONEST
    back = names.assign(_served({1: [HONEST], 2: [TAGGED]}))
    assert _names(back)[TAGGED] == HONEST


def test_forgotten_past_the_bound_only_names_of_tools_gone() -> None:
    """Bound 2: the gone tool's name is forgotten; the served ones are kept."""
    names = ServedNames(bound=2)
    names.assign(_served({1: ["old"]}))
    names.assign(_served({2: ["x", "y"]}))
    assert names.stood_for("old") == ""
    assert (names.stood_for("x"), names.stood_for("y")) == ("x", "y")


def test_a_call_by_a_gone_tools_name_says_what_it_stood_for() -> None:
    """Nothing is sent: the name is not served now, and the answer says why."""
    source = _FixedSource(_served({1: [HONEST]}))
    server = MechToolServer(source, CallSettings("g", "a"), None, None)
    server.refresh()
    source.served = _served({2: [TAGGED]})
    server.refresh()
    result = anyio.run(server.call, TAGGED, {"port": "x"})
    assert result.is_error
    text = str(getattr(result.content[0], "text", ""))
    assert (
        f"stood for mech tool {json.dumps(HONEST)}" in text
        and "no longer offered" in text
    )


def test_a_pinned_name_standing_for_another_mech_tool_is_refused(
    tmp_path: Path,
) -> None:
    """A pin file from another run holds ``tide table`` under the tagged name."""
    pins = tmp_path / "pins.json"
    server = MechToolServer(
        _FixedSource(_served({1: [HONEST]})),
        CallSettings("g", "a", pin_file=str(pins), all_tools=True),
        None,
        None,
    )
    server.refresh()
    entry = load_pins(pins)[TAGGED]
    assert entry["mech_tool"] == HONEST
    # the stranger's tool, alone under the tagged name (a restart, nothing served before)
    fresh = MechToolServer(
        _FixedSource(_served({2: [TAGGED]})),
        CallSettings("g", "a", pin_file=str(pins), all_tools=True),
        None,
        None,
    )
    fresh.refresh()
    assert TAGGED not in [t.name for t in fresh.listed.tools]
    result = anyio.run(fresh.call, TAGGED, {"port": "x"})
    assert result.is_error
    text = str(getattr(result.content[0], "text", ""))
    assert f"approved for mech tool {HONEST!r}" in text
    assert f"now stands for mech tool {TAGGED!r}" in text


def test_an_older_pin_entry_gets_its_mech_tool_recorded(tmp_path: Path) -> None:
    """An entry without ``mech_tool`` (older version) is kept and completed."""
    pins = tmp_path / "pins.json"
    server = MechToolServer(
        _FixedSource(_served({1: ["tides"]})),
        CallSettings("g", "a", pin_file=str(pins), all_tools=True),
        None,
        None,
    )
    server.refresh()
    older = {
        name: {"digest": e["digest"], "definition": e["definition"]}
        for name, e in load_pins(pins).items()
    }
    save_pins(pins, older)
    again = MechToolServer(
        _FixedSource(_served({1: ["tides"]})),
        CallSettings("g", "a", pin_file=str(pins), all_tools=True),
        None,
        None,
    )
    again.refresh()
    assert [t.name for t in again.listed.tools] == ["tides"]
    assert json.loads(pins.read_text())["tools"]["tides"]["mech_tool"] == "tides"


def _named(name: str, mech_tool: str) -> ServedTool:
    return ServedTool(name, mech_tool, {"name": name, "description": "d"}, ())


def test_a_source_renaming_a_served_tool_does_not_move_it() -> None:
    """An agent (of another version) names the same mech tool otherwise: kept."""
    names = ServedNames()
    names.assign(ServedCatalogue("1", (_named("tides_1", "tides?"),)))
    again = names.assign(
        ServedCatalogue("2", (_named("tides_2", "tides?"), _named("tides_1", "x y")))
    )
    assert _names(again)["tides_1"] == "tides?"
    assert _names(again)[next(n for n in _names(again) if n != "tides_1")] == "x y"


def test_a_duplicate_of_a_mech_tool_under_a_taken_name_is_left_out() -> None:
    """A hostile source's second entry for a mech tool: kept only under a free name."""
    names = ServedNames()
    served = names.assign(
        ServedCatalogue(
            "1",
            (_named("a", "a"), _named("a", "a"), _named("call_tool", "a")),
        )
    )
    assert [t.name for t in served.tools] == ["a", "call_tool"]  # refused later
    assert names.stood_for("call_tool") == ""


def _dated(mechs: Dict[int, List[str]], declared: Dict[int, int]) -> ServedCatalogue:
    """As :func:`_served`, each mech's tools declared at its block and delivered after.

    :param mechs: mech id -> the tool names it declares.
    :param declared: mech id -> the block its tools were declared at (absent: none).
    :return: the served catalogue, offers dated.
    """
    catalogue = _priced_catalogue(
        {i: manifest(*(_typed(n, "port") for n in names)) for i, names in mechs.items()}
    )
    tenures = {
        ("0x" + f"{i:040x}", name): Tenure(block, block + 1)
        for i, block in declared.items()
        for name in mechs[i]
    }
    return served_from_catalogue(catalogue, tenures)


def test_a_first_tag_returns_from_a_junior_literal_copy_to_its_tool() -> None:
    """adv29yp N1: the honest tool misses the first read; the next read gives it its tag.

    The stranger's literal ``tide_table_<tag>`` was served under that name while the
    honest ``tide table`` was absent; once both are read, the senior honest tool has
    its first tag and the copy is tagged itself, as the exporter's rule names them.
    """
    names = ServedNames()
    first = names.assign(_dated({2: [TAGGED]}, {2: 300}))
    assert _names(first) == {TAGGED: TAGGED}
    second = names.assign(_dated({1: [HONEST], 2: [TAGGED]}, {1: 100, 2: 300}))
    assert _names(second)[TAGGED] == HONEST
    copy = next(t for t in second.tools if t.mech_tool == TAGGED)
    assert copy.name not in (TAGGED, HONEST)
    assert names.stood_for(TAGGED) == HONEST
    third = names.assign(_dated({1: [HONEST], 2: [TAGGED]}, {1: 100, 2: 300}))
    assert _names(third) == _names(second)  # settled: no name moves again


def test_a_senior_literal_tool_keeps_the_name_from_a_junior_tag() -> None:
    """An honest tool literally named like a tag; a stranger grinds a name tagged so."""
    names = ServedNames()
    names.assign(_dated({1: [TAGGED]}, {1: 100}))
    both = names.assign(_dated({1: [TAGGED], 2: [HONEST]}, {1: 100, 2: 300}))
    assert _names(both)[TAGGED] == TAGGED
    assert next(t for t in both.tools if t.mech_tool == HONEST).name != TAGGED


def test_a_first_tag_a_gone_literal_held_is_not_given_to_its_tool() -> None:
    """The literal holder left: its name stays held (it may be the honest one missing)."""
    names = ServedNames()
    names.assign(_dated({2: [TAGGED]}, {2: 100}))
    later = names.assign(_dated({1: [HONEST]}, {1: 300}))
    assert TAGGED not in _names(later)
    assert names.stood_for(TAGGED) == TAGGED


def test_a_tag_taken_from_a_literal_tool_with_no_facts_follows_the_exporter() -> None:
    """Neither offer dated (an agent without a node): the exporter's rule, tag first."""
    names = ServedNames()
    names.assign(_served({2: [TAGGED]}))
    both = names.assign(_served({1: [HONEST], 2: [TAGGED]}))
    assert _names(both)[TAGGED] == HONEST
