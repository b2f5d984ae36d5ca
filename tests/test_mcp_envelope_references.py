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

"""A mech's schema whose meaning changes once nested in the envelope loses no answer.

adv29zz E1: a paid tool's output schema is listed as the server's envelope, the mech's
schema nested at ``/properties/answer/anyOf/0``; a pointer (``#/properties/text``,
``#``), an anchor, a ``$dynamicRef``/``$recursiveRef``, a base (``$id``), a nested
``$schema`` or a later draft's reference keyword resolves against the envelope there.
Two layers, both tested here with schemas of that kind:

- the listing (``answer_envelope.listed_envelope``): an envelope the MCP SDK's client
  would not compile or resolve is never listed; the tool is listed with
  ``TEXT_ENVELOPE`` (its answers text) and a server note; through the whole path
  (manifest -> ``source.served_from_catalogue``) such a schema is dropped or rewritten
  by ``manifest.schema_refs`` first;
- the answer (``results.structured_or_why``): a structured value is returned only when
  its envelope is accepted by each envelope listed, checked as the SDK's client checks;
  else it is text inside the envelope, never an error.

The oracle is the installed MCP SDK's own ``ClientSession.validate_tool_result``
(``tests.test_mcp_served_structure.sdk_refusal``). Honest controls (``$ref`` into
``$defs`` or ``definitions``, a recursive tree) stay structured.
"""

import http.server
import json
import shutil
import subprocess  # nosec: node runs our own script
import threading
from pathlib import Path
from typing import Any, Dict, Iterator, List

import anyio
import pytest

from mech_catalogue_cli.mcp_server import answer_envelope
from mech_catalogue_cli.mcp_server.answer_envelope import (
    TEXT_ENVELOPE,
    TEXT_LISTED,
    UNLISTED_SCHEMA_NOTE,
    envelope,
    envelope_refusal,
    envelope_schema,
    is_envelope,
    listed_envelope,
)
from mech_catalogue_cli.mcp_server.listed_schemas import Held
from mech_catalogue_cli.mcp_server.offers import check_delivery
from mech_catalogue_cli.mcp_server.results import answer_result, structured_or_why
from mech_catalogue_cli.mcp_server.source import ServedTool, served_from_catalogue
from tests.answer_shape import answer_of, enveloped
from tests.test_contract_guards import manifest
from tests.test_mcp_paid_answer_unit import PAID, SAME, _entry, _offer
from tests.test_mcp_served_structure import sdk_refusal
from tests.test_mcp_source import _priced_catalogue, _typed

DRAFT_2019 = "https://json-schema.org/draft/2019-09/schema"

#: (id, the mech's output schema, a delivery that meets it read alone): each holds a
#: construct that resolves otherwise, or not at all, nested in the envelope
MOVING: List[Any] = [
    (
        "dynamic-ref-pointer",
        {
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "result": {"$dynamicRef": "#/properties/text"},
            },
        },
        {"result": "High tide at Brest"},
    ),
    (
        "dynamic-ref-root",
        {
            "type": "object",
            "properties": {
                "result": {"type": "string"},
                "more": {"type": "array", "items": {"$dynamicRef": "#"}},
            },
        },
        {"result": "Brest", "more": [{"result": "Roscoff"}]},
    ),
    (
        "dynamic-anchor",
        {
            "$dynamicAnchor": "node",
            "type": "object",
            "properties": {
                "result": {"type": "string"},
                "kids": {"type": "array", "items": {"$dynamicRef": "#node"}},
            },
        },
        {"result": "Brest", "kids": [{"result": "Roscoff"}]},
    ),
    (
        "recursive-ref-2019",
        {
            "$schema": DRAFT_2019,
            "$recursiveAnchor": True,
            "type": "object",
            "properties": {
                "result": {"type": "string"},
                "kids": {"type": "array", "items": {"$recursiveRef": "#"}},
            },
        },
        {"result": "Brest", "kids": [{"result": "Roscoff"}]},
    ),
    (
        "pointer-ref",
        {
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "result": {"$ref": "#/properties/text"},
            },
        },
        {"result": "Slack water"},
    ),
    (
        "root-ref",
        {
            "type": "object",
            "properties": {
                "result": {"type": "string"},
                "more": {"type": "array", "items": {"$ref": "#"}},
            },
        },
        {"result": "Brest", "more": [{"result": "Roscoff"}]},
    ),
    (
        "anchor",
        {
            "type": "object",
            "properties": {"result": {"$ref": "#port"}},
            "$defs": {"p": {"$anchor": "port", "type": "string"}},
        },
        {"result": "Brest"},
    ),
    (
        "nested-id",
        {
            "type": "object",
            "properties": {
                "result": {
                    "$id": "https://mech.example/result",
                    "$defs": {"s": {"type": "string"}},
                    "$ref": "#/$defs/s",
                }
            },
        },
        {"result": "Brest"},
    ),
    (
        "defs-dropped",  # its definitions are not at the root any more
        {
            "type": "object",
            "properties": {"result": {"$ref": "#/properties/box/$defs/s"}},
            "$defs": {},
        },
        {"result": "Brest"},
    ),
    (
        "nested-2019-items",
        {
            "$schema": DRAFT_2019,
            "type": "object",
            "properties": {
                "result": {
                    "type": "array",
                    "items": [{"type": "string"}],
                    "additionalItems": False,
                }
            },
        },
        {"result": ["Brest"]},
    ),
    (
        "future-keyword",
        {
            "type": "object",
            "properties": {"result": {"$include": "#/properties/text"}},
        },
        {"result": "Brest"},
    ),
    (
        "does-not-compile",
        {
            "type": "object",
            "properties": {"result": {"type": "string", "pattern": "(?<=a+)b"}},
        },
        {"result": "Brest"},
    ),
]
#: cases the manifest's own checks drop besides the scoped references (a pointer,
#: anchor or base the rewrite cannot resolve, a pattern no valid JSON Schema, an
#: object schema whose root is a ``$ref`` once rewritten: MCP lists only type object)
NOT_LISTED = ("root-ref", "nested-id", "defs-dropped", "does-not-compile")
#: honest schemas: references into root definitions, as ``manifest.schema_refs``
#: writes them; they stay structured
HONEST: List[Any] = [
    (
        "defs",
        {
            "type": "object",
            "properties": {"result": {"$ref": "#/$defs/port"}},
            "$defs": {"port": {"type": "string"}},
        },
        {"result": "Brest"},
    ),
    (
        "definitions",
        {
            "type": "object",
            "properties": {"result": {"$ref": "#/definitions/port"}},
            "definitions": {"port": {"type": "string"}},
        },
        {"result": "Brest"},
    ),
    (
        "recursive-defs",
        {
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/node"}},
            "required": ["root"],
            "$defs": {
                "node": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                    },
                }
            },
        },
        {"root": {"name": "Brest", "kids": [{"name": "Roscoff", "kids": []}]}},
    ),
]


def _served(listed_schema: Dict[str, Any]) -> ServedTool:
    """A paid tool listed with ``listed_schema`` (two offers, the first paid)."""
    tool = {"name": "t", "inputSchema": {"type": "object"}}
    tool["outputSchema"] = listed_schema
    return ServedTool("t", "t", tool, (_offer(PAID), _offer(SAME)))


def _answered(tool: ServedTool, delivered: Any, held: Any = None) -> Any:
    """Check and compose one delivered answer as the server does."""
    body = json.dumps(delivered).encode()
    args = (tool, body) if held is None else (tool, body, held)
    structured, problem = anyio.run(structured_or_why, *args)
    check = check_delivery(PAID, PAID, [_offer(PAID), _offer(SAME)])
    return answer_result(tool, _entry(), body, check, structured, problem, {})


def _pipeline(schema: Dict[str, Any]) -> ServedTool:
    """The tool as ``tools/list`` serves it from a manifest declaring ``schema``."""
    declared = dict(_typed("forecast", "prompt"), output={"schema": schema})
    (served,) = served_from_catalogue(_priced_catalogue({1: manifest(declared)})).tools
    return served


@pytest.mark.parametrize("name, schema, delivered", MOVING, ids=[c[0] for c in MOVING])
def test_an_envelope_whose_references_move_is_listed_as_text(
    name: str, schema: Dict[str, Any], delivered: Any
) -> None:
    """Never listed: text only, with the reason; its answer is text the SDK accepts."""
    listed, why = listed_envelope(schema)
    assert listed == TEXT_ENVELOPE and why, name
    assert envelope_refusal(envelope_schema(schema)) == why
    result = _answered(_served(listed), delivered)
    assert not result.is_error
    assert answer_of(result) is None  # text
    assert TEXT_LISTED in enveloped(result)["server_note"]
    assert sdk_refusal(listed, result.structured_content) is None


@pytest.mark.parametrize("name, schema, delivered", MOVING, ids=[c[0] for c in MOVING])
def test_an_envelope_listed_unchecked_still_returns_what_the_sdk_accepts(
    name: str, schema: Dict[str, Any], delivered: Any
) -> None:
    """Listed as it is (an earlier listing, or a bug): the answer is checked as listed.

    Whatever the mech's schema alone accepts, the structured value is returned only
    when the SDK's client accepts it inside the envelope listed; else it is text, never
    an error. An envelope the client cannot compile refuses every result: that one is
    the listing's to prevent (the test above).

    :param name: the case.
    :param schema: the mech's output schema.
    :param delivered: a delivery meeting it read alone.
    """
    listed = envelope_schema(schema)
    result = _answered(_served(listed), delivered)
    assert not result.is_error, name
    refused = sdk_refusal(listed, envelope("note", "any text"))
    if refused is None:  # the envelope compiles: the answer is accepted
        assert sdk_refusal(listed, result.structured_content) is None, name


@pytest.mark.parametrize("name, schema, delivered", MOVING, ids=[c[0] for c in MOVING])
def test_through_the_manifest_no_listed_envelope_loses_an_answer(
    name: str, schema: Dict[str, Any], delivered: Any
) -> None:
    """From a manifest: no output schema, the text envelope, or one that resolves.

    ``manifest.schema_refs`` drops a schema with a reference it cannot keep
    (``$dynamicRef``, ``$recursiveRef``, one that resolves nowhere) and every other
    ``$`` keyword; what is listed compiles, and the paid answer reaches the client.

    :param name: the case.
    :param schema: the mech's output schema.
    :param delivered: a delivery meeting it read alone.
    """
    served = _pipeline(schema)
    listed = served.tool.get("outputSchema")
    scoped = name.startswith(("dynamic", "recursive"))
    assert (listed is None) is (scoped or name in NOT_LISTED), name
    if listed is None:
        return  # no schema: the SDK's client checks nothing
    assert is_envelope(listed) and envelope_refusal(listed) == "", name
    result = _answered(_served(listed), {"requestId": 1, "result": delivered})
    assert not result.is_error
    assert sdk_refusal(listed, result.structured_content) is None, name
    assert sdk_refusal(listed, envelope("note", "any text")) is None


def test_a_nested_2019_schema_is_translated_and_stays_structured() -> None:
    """2019-09's array ``items`` becomes ``prefixItems``: valid nested in 2020-12.

    The server checks answers against it; the listing leaves a tuple out, as validators
    of other ecosystems read it otherwise (``portable_schema``, adv29zy F1).
    """
    _, schema, delivered = [c for c in MOVING if c[0] == "nested-2019-items"][0]
    served = _pipeline(schema)
    listed = served.tool["outputSchema"]
    inner = listed["properties"]["answer"]["anyOf"][0]["properties"]["result"]
    assert "prefixItems" not in inner and "items" not in inner
    assert served.answer_schema is not None
    whole = served.answer_schema["properties"]["result"]
    assert whole["prefixItems"] == [{"type": "string"}] and whole["items"] is False
    result = _answered(_served(listed), delivered)
    assert answer_of(result) == delivered
    assert sdk_refusal(listed, result.structured_content) is None


def test_what_the_client_cannot_compile_is_text_and_a_comment_is_no_reason() -> None:
    """A pattern Python's ``re`` refuses: text, said; a ``$comment``: dropped, listed."""
    schema = {
        "type": "object",
        "properties": {"result": {"type": "string", "pattern": "(?<=a+)b"}},
    }
    listed, why = listed_envelope(schema)
    assert listed == TEXT_ENVELOPE and "no valid JSON Schema" in why
    commented = {"type": "object", "properties": {"result": {"$comment": "a note"}}}
    assert listed_envelope(commented)[0] == TEXT_ENVELOPE  # unchecked: refused
    served = _pipeline(commented).tool["outputSchema"]  # the rewrite drops it
    assert served != TEXT_ENVELOPE and "$comment" not in json.dumps(served)


def test_a_tool_whose_envelope_cannot_be_listed_has_the_note(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``source`` lists the text envelope and says why among the server's notes."""
    monkeypatch.setattr(
        answer_envelope, "listed_envelope", lambda schema: (TEXT_ENVELOPE, "a reason")
    )
    served = _pipeline({"type": "object", "properties": {"result": {}}})
    assert served.tool["outputSchema"] == TEXT_ENVELOPE
    (note,) = [n for n in served.server_notes if n.startswith(UNLISTED_SCHEMA_NOTE)]
    assert "a reason" in note and "given as text" in note


@pytest.mark.parametrize("name, schema, delivered", HONEST, ids=[c[0] for c in HONEST])
def test_honest_references_stay_structured(
    name: str, schema: Dict[str, Any], delivered: Any
) -> None:
    """``$ref`` into ``$defs``/``definitions``: listed, structured, accepted."""
    listed, why = listed_envelope(schema)
    assert why == "" and listed == envelope_schema(schema), name
    result = _answered(_served(listed), delivered)
    assert answer_of(result) == delivered
    assert sdk_refusal(listed, result.structured_content) is None
    served = _pipeline(schema).tool["outputSchema"]
    assert envelope_refusal(served) == "" and served != TEXT_ENVELOPE, name


def test_a_client_holding_the_text_envelope_reads_text_not_an_error() -> None:
    """Listed text only before, structured now: the answer is text, no error."""
    _, schema, delivered = HONEST[0]
    now = envelope_schema(schema)
    result = _answered(_served(now), delivered, Held((TEXT_ENVELOPE,), False))
    assert not result.is_error and answer_of(result) is None
    assert sdk_refusal(TEXT_ENVELOPE, result.structured_content) is None
    assert sdk_refusal(now, result.structured_content) is None


class _Counting(http.server.BaseHTTPRequestHandler):
    """Counts every request (a remote ``$ref`` must never be fetched)."""

    hits: List[str] = []

    def do_GET(self) -> None:  # noqa: N802  # pylint: disable=invalid-name
        """Answer a schema, counting the request."""
        self.hits.append(self.path)
        body = json.dumps({"type": "string"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: Any) -> None:  # pylint: disable=arguments-differ
        """Quiet."""


@pytest.fixture(name="schema_host")
def _schema_host() -> Iterator[str]:
    """A loopback HTTP server answering any path with a schema."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Counting)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Counting.hits = []
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_remote_reference_is_never_fetched(schema_host: str) -> None:
    """Listed, answered and checked: nothing is asked of the URL it names."""
    schema = {
        "type": "object",
        "properties": {"result": {"$ref": f"{schema_host}/port.json"}},
    }
    listed, why = listed_envelope(schema)
    assert listed == TEXT_ENVELOPE and "no root definition" in why
    result = _answered(_served(envelope_schema(schema)), {"result": "Brest"})
    assert not result.is_error and answer_of(result) is None
    assert _pipeline(schema).tool.get("outputSchema") is None  # dropped
    assert not _Counting.hits


#: the TypeScript SDK's validator provider (``tests/devnet/test_mcp_tasks.py`` installs
#: the client there): the JS clients' check of ``structuredContent``
AJV_PROVIDER = (
    Path(__file__).resolve().parents[1]
    / ".tools/mcp-js/node_modules/@modelcontextprotocol/client/dist/validators/ajv.mjs"
)
#: compiles each schema as the TypeScript SDK's client does, validates each value
AJV_SCRIPT = """
import { readFileSync } from "node:fs";
const { AjvJsonSchemaValidator } = await import(process.argv[2]);
const validator = new AjvJsonSchemaValidator();
const seen = {};
for (const c of JSON.parse(readFileSync(process.argv[3], "utf8"))) {
  try {
    const check = validator.getValidator(c.schema);
    seen[c.name] = c.values.map((value) => check(value).valid);
  } catch (error) {
    seen[c.name] = String(error).slice(0, 200);
  }
}
console.log(JSON.stringify(seen));
"""


def test_every_listed_envelope_compiles_in_the_typescript_sdk(tmp_path: Path) -> None:
    """Ajv (the TypeScript SDK's default validator) takes what the server lists.

    Every envelope listed from the schemas above (through a manifest) and the text
    envelope compile, and accept the structured and the text answer.

    :param tmp_path: where the cases and the script are written.
    """
    if shutil.which("node") is None or not AJV_PROVIDER.is_file():
        pytest.skip("needs Node.js and the TypeScript MCP client in .tools/mcp-js")
    cases = [{"name": "text", "schema": TEXT_ENVELOPE, "values": [envelope("n", "t")]}]
    for name, schema, delivered in HONEST + MOVING:
        listed = _pipeline(schema).tool.get("outputSchema")
        if listed is not None:
            values = [envelope("n", delivered), envelope("n", "t")]
            cases.append({"name": name, "schema": listed, "values": values})
    (tmp_path / "cases.json").write_text(json.dumps(cases), encoding="utf-8")
    (tmp_path / "check.mjs").write_text(AJV_SCRIPT, encoding="utf-8")
    done = subprocess.run(  # nosec: our own script and files
        ["node", str(tmp_path / "check.mjs"), AJV_PROVIDER.as_uri(), "cases.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    seen = json.loads(done.stdout)
    assert len(seen) == len(cases) > len(HONEST)
    assert all(
        valid == [True] * len(c["values"]) for c, valid in zip(cases, seen.values())
    ), seen
