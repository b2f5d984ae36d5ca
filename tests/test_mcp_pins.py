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

"""Rug pull (issue 29, attack 4): a tool changed after approval is not callable (``--pin``).

Catalogues come from the real parser and exporter (manifests written here); the server
runs without a key, so nothing can be paid whatever happens.
"""

import json
from pathlib import Path
from typing import Any, Dict, List

import anyio
import pytest

from mech_catalogue_cli.mcp_server.answer_envelope import (
    answer_schema_of,
    envelope_schema,
)
from mech_catalogue_cli.mcp_server.definition_checks import definition_changes
from mech_catalogue_cli.mcp_server.pins import (
    PinFileError,
    definition_digest,
    definition_of,
    load_pins,
)
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer
from mech_catalogue_cli.mcp_server.source import (
    ServedCatalogue,
)
from tests.test_mcp_untrusted_text import served_catalogue


def _tool(name: str, **arguments: str) -> Dict[str, Any]:
    return {
        "name": name,
        "description": f"{name} for a port.",
        "kwargs": [{"identifier": k, "type": t} for k, t in arguments.items()],
    }


def _served(*tools: Dict[str, Any]) -> ServedCatalogue:
    return served_catalogue(*tools, price=3, address="0x" + "0b" * 20)


class _Source:  # pylint: disable=too-few-public-methods
    def __init__(self, served: ServedCatalogue) -> None:
        self.served = served

    def read(self) -> ServedCatalogue:
        """Return the current catalogue."""
        return self.served


def _listed(server: MechToolServer) -> List[str]:
    return [t.name for t in server.listed.tools]


def test_definition_changes_name_each_argument() -> None:
    """Added, removed and changed arguments, the rules and the text are each named."""
    before = {
        "name": "t",
        "description": "a",
        "inputSchema": {
            "type": "object",
            "properties": {"port": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["port"],
        },
    }
    after = {
        "name": "t",
        "description": "b",
        "inputSchema": {
            "type": "object",
            "properties": {"port": {"type": "number"}, "wallet_note": {}},
            "required": ["port", "wallet_note"],
        },
    }
    assert definition_changes(before, after) == [
        "argument 'wallet_note' added",
        "argument 'days' removed",
        "argument 'port' changed",
        "the argument rules changed",
        "description changed",
    ]
    assert not definition_changes(before, before)


def test_the_digest_is_of_what_the_model_reads_not_of_the_price() -> None:
    """Provenance, offers and the server's price line are not part of a definition."""
    tool = {
        "name": "t",
        "description": "x",
        "inputSchema": {"type": "object", "properties": {}},
        "_meta": {"offers": [1]},
    }
    moved = dict(tool, _meta={"offers": [2]})
    assert definition_digest(definition_of(tool)) == definition_digest(
        definition_of(moved)
    )
    assert definition_digest(definition_of(tool)).startswith("sha256:")
    assert definition_digest(definition_of(dict(tool, description="y"))) != (
        definition_digest(definition_of(tool))
    )


def test_a_changed_tool_is_refused_until_re_approved(tmp_path: Path) -> None:
    """First sight approves; an added argument unlists the tool and a call names it."""
    pins = tmp_path / "pins.json"
    source = _Source(_served(_tool("tides", port="str"), _tool("swell", port="str")))
    server = MechToolServer(
        source, CallSettings("g", "a", pin_file=str(pins)), None, None
    )
    assert server.refresh() is True
    assert sorted(_listed(server)) == ["swell", "tides"]
    assert sorted(load_pins(pins)) == ["swell", "tides"]  # approved on first sight

    source.served = _served(
        _tool("tides", port="str", wallet_note="str"), _tool("swell", port="str")
    )
    assert server.refresh() is True
    assert _listed(server) == ["swell"]
    result = anyio.run(server.call, "tides", {"port": "Brest", "wallet_note": "x"})
    assert result.is_error
    text = str(getattr(result.content[0], "text", ""))
    assert "argument 'wallet_note' added" in text and str(pins) in text
    assert "nothing was sent" in text

    # re-approval: the user deletes the entry; the next read approves the new definition
    data = json.loads(pins.read_text())
    del data["tools"]["tides"]
    pins.write_text(json.dumps(data))
    source.served = _served(
        _tool("tides", port="str", wallet_note="str"),
        _tool("swell", port="str"),
        _tool("surf", port="str"),
    )
    assert server.refresh() is True
    assert sorted(_listed(server)) == ["surf", "swell", "tides"]


def test_without_pin_nothing_is_written_and_changes_are_listed(tmp_path: Path) -> None:
    """No --pin: the behaviour is as before (no file, a changed tool listed)."""
    source = _Source(_served(_tool("tides", port="str")))
    server = MechToolServer(source, CallSettings("g", "a"), None, None)
    server.refresh()
    source.served = _served(_tool("tides", port="str", days="int"))
    server.refresh()
    assert _listed(server) == ["tides"] and not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "content", ["not json", '{"version": 2, "tools": {}}', '["tools"]']
)
def test_a_bad_pin_file_is_a_clear_error(tmp_path: Path, content: str) -> None:
    """A pin file that is not one stops the read with its path and what to do."""
    pins = tmp_path / "pins.json"
    pins.write_text(content)
    server = MechToolServer(
        _Source(_served(_tool("tides", port="str"))),
        CallSettings("g", "a", pin_file=str(pins)),
        None,
        None,
    )
    with pytest.raises(PinFileError, match="fix or delete it"):
        server.refresh()
    assert pins.read_text() == content  # nothing overwritten


def _typed_tool(name: str) -> Dict[str, Any]:
    """A tool whose mech declares an output schema (``{"level": string}``)."""
    output = {
        "type": "object",
        "properties": {"level": {"type": "string"}},
        "required": ["level"],
    }
    return dict(
        _tool(name, port="str"),
        output={"type": "object", "description": "the tides", "schema": output},
    )


def test_a_definition_pinned_before_the_answer_envelope_asks_for_re_approval(
    tmp_path: Path,
) -> None:
    """A pin of the mech's schema alone (an earlier version): refused, said, approvable.

    Such a file holds ``outputSchema`` as the mech declared it; the server now lists
    it inside its envelope (``answer_envelope``): the definition changed, the call
    names why, nothing crashes, and deleting the entry approves it.

    :param tmp_path: pytest's temporary folder.
    """
    pins = tmp_path / "pins.json"
    source = _Source(_served(_typed_tool("tides"), _typed_tool("swell")))
    server = MechToolServer(
        source, CallSettings("g", "a", pin_file=str(pins)), None, None
    )
    assert server.refresh() is True and sorted(_listed(server)) == ["swell", "tides"]
    data = json.loads(pins.read_text())
    entry = data["tools"]["tides"]
    listed = entry["definition"]["outputSchema"]
    assert set(listed["properties"]) == {"server_note", "answer"}
    # as an earlier version pinned it: the mech's schema alone, its digest over that
    entry["definition"]["outputSchema"] = answer_schema_of(listed)
    entry["digest"] = definition_digest(entry["definition"])
    pins.write_text(json.dumps(data))

    restarted = MechToolServer(
        _Source(source.served), CallSettings("g", "a", pin_file=str(pins)), None, None
    )
    assert restarted.refresh() is True and _listed(restarted) == ["swell"]
    result = anyio.run(restarted.call, "tides", {"port": "Brest"})
    text = str(getattr(result.content[0], "text", ""))
    assert result.is_error and "nothing was sent" in text
    assert "server_note, then answer" in text and "mech's schema is unchanged" in text
    assert str(pins) in text

    del data["tools"]["tides"]
    pins.write_text(json.dumps(data))
    again = MechToolServer(
        _Source(source.served), CallSettings("g", "a", pin_file=str(pins)), None, None
    )
    assert again.refresh() is True and sorted(_listed(again)) == ["swell", "tides"]


def test_another_output_schema_change_is_said_as_such() -> None:
    """A mech's own schema change is no envelope change."""
    before = {"name": "t", "outputSchema": {"type": "object"}}
    after = {"name": "t", "outputSchema": envelope_schema({"type": "array"})}
    assert definition_changes(before, after) == ["output schema changed"]
    same = {"name": "t", "outputSchema": envelope_schema({"type": "object"})}
    assert "mech's schema is unchanged" in definition_changes(before, same)[0]
