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

"""MCP ``Tool`` objects and ``tools/list`` results (Model Context Protocol, revision 2026-07-28).

Revision: :data:`MCP_PROTOCOL_VERSION`, the newest the pinned ``mcp`` SDK (2.3.0,
``mcp_types.LATEST_PROTOCOL_VERSION``) speaks; its ``Tool`` is unchanged from 2025-11-25.
Shape (schema.ts of that revision): ``name`` (1-128 of ``A-Za-z0-9_.-``), ``title``,
``description``, ``inputSchema`` (object schema with ``properties``), ``outputSchema``
(object schema, only when the tool declares one of type object), ``annotations`` (hints;
mech tools reach outside services, so ``openWorldHint`` is true) and ``_meta`` carrying
the tool's provenance under :data:`META_KEY` (only what is known: no mech, CID or digest
is written for a manifest read from a file), its ``kind`` when the manifest gives one, and
the original name when it had to change.

Every Tool is checked (:func:`.conformance.mcp_tool_problems`, without the meta-schema
pass its docstring explains) before it is returned.
A tool that fails is served without the broken part: the offending argument is left out
(then, if still failing, the call falls back to the free-text ``prompt`` schema); a
failing ``outputSchema`` is left out; what was left out is listed, one sentence each,
under ``_meta[META_KEY]["problems"]``. The ``tools/list`` result carries the revision's
``resultType``, ``ttlMs`` and ``cacheScope``; tools keep a stable order (the caller's).
"""

import copy
from typing import Any, Dict, Iterable, List, Optional, Sequence

from mech_catalogue_core.exporters.conformance import (
    mcp_tool_problems,
)
from mech_catalogue_core.exporters.names import (
    MCP_TOOL_RULE,
    export_names,
    named_once,
)
from mech_catalogue_core.exporters.schemas import (
    call_schema,
    output_object_schema,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
)
from mech_catalogue_core.model.problems import (
    Problem,
    pointer,
)
from mech_catalogue_core.model.quoted_text import reasons_for_model, sentence_for_model
from mech_catalogue_core.model.tool import Tool
from mech_catalogue_core.model.untrusted_text import (
    MAX_TEXT_CHARS,
    for_model,
    label_for_model,
    prose_for_model,
    schema_for_model,
    tool_for_model,
    tool_text_problems,
)
from mech_catalogue_core.model.withheld_text import (
    withheld_note,
    withheld_places,
    withheld_schema,
)

MCP_PROTOCOL_VERSION = "2026-07-28"
META_KEY = "io.olas/mech-tool"
#: ``tools/list`` cache hint: the catalogue changes at most once per period.
DEFAULT_TTL_MS = 60_000
CACHE_SCOPE = "public"  # the list holds no user-specific data
RESULT_TYPE = "complete"


def provenance_meta(tool: Tool) -> Dict[str, Any]:
    """The tool's provenance, known fields only.

    :param tool: the model tool.
    :return: ``{"shape", "mech"?, "cid"?, "digest"?, "arguments", "derived_from"?}``:
        ``arguments`` (when the tool has any and comes from a mech) is ``declared`` (the manifest says so) or ``derived`` (read from the
        code of component ``derived_from.component_id`` at ``derived_from.cid``).
    """
    provenance = tool.provenance
    meta: Dict[str, Any] = {"shape": provenance.shape}
    if provenance.mech is not None:
        meta["mech"] = provenance.mech.to_dict()
    if provenance.cid:
        meta["cid"] = provenance.cid
    if provenance.digest:
        meta["digest"] = provenance.digest
    if tool.arguments and (provenance.mech is not None or provenance.derived_cid):
        meta["arguments"] = provenance.arguments_source
    if provenance.derived_cid:
        meta["derived_from"] = {
            "component_id": provenance.derived_component,
            "cid": provenance.derived_cid,
        }
    return meta


def _broken_arguments(problems: Sequence[str]) -> Optional[List[str]]:
    """Top-level argument keys the problems point into; None when one is elsewhere."""
    keys = []
    prefix = "/inputSchema/properties/"
    for sentence in problems:
        where = sentence.split(":", 1)[0]
        if not where.startswith(prefix):
            return None
        keys.append(where[len(prefix) :].split("/", 1)[0])
    return keys


def _checked(result: Dict[str, Any], tool: Tool) -> Dict[str, Any]:
    problems = mcp_tool_problems(result, meta_schema=False)
    if not problems:
        return result
    dropped: List[str] = list(problems)
    if "outputSchema" in result and any(
        p.startswith("/outputSchema") for p in problems
    ):
        del result["outputSchema"]
        problems = mcp_tool_problems(result, meta_schema=False)
    broken = _broken_arguments(problems)
    if problems and broken:
        schema = result["inputSchema"]
        escaped = {pointer(k): k for k in schema["properties"]}
        for key in broken:
            original = escaped.get("/" + key)
            if original is not None:
                schema["properties"].pop(original, None)
                if isinstance(schema.get("required"), list):
                    schema["required"] = [
                        r for r in schema["required"] if r != original
                    ]
                    if not schema["required"]:
                        del schema["required"]
        problems = mcp_tool_problems(result, meta_schema=False)
    if problems:
        result["inputSchema"] = call_schema(
            Tool(name=tool.name, input_description=tool.input_description)
        )
    # each names its place by the schema's property names: shown as the tool's text is
    result["_meta"][META_KEY]["problems"] = [sentence_for_model(p) for p in dropped]
    return result


def to_mcp_tool(tool: Tool, name: Optional[str] = None) -> Dict[str, Any]:
    """One checked MCP Tool as JSON, its text as a model may read it.

    Every text of the manifest in it (title, description, argument descriptions, schema
    prose, enum values, examples, output schema) is
    :func:`.untrusted_text.tool_for_model`: invisible and control characters removed,
    capped with the cut said, text flagged as instructions or asking for a secret
    withheld in its schemas (:mod:`..model.withheld_text`), the description then
    ending with the note saying where (:func:`with_withheld_note`). ``_meta[META_KEY]["warnings"]`` lists the tool's
    :func:`.untrusted_text.tool_text_problems` (invisible text, instruction-like text,
    arguments asking for secrets) as problem dicts, when it has any.

    :param tool: the model tool.
    :param name: the exported name (default: ``tool.name`` sanitised by the MCP rule).
    :return: a dict with camelCase keys as on the wire, passing
        :func:`.conformance.mcp_tool_problems`.
    """
    exported = name or export_names([tool.name], MCP_TOOL_RULE)[tool.name]
    meta: Dict[str, Any] = {"provenance": provenance_meta(tool)}
    if tool.kind:
        meta["kind"] = tool.kind
    if exported != tool.name:
        meta["mechToolName"] = tool.name
    warnings = tool_text_problems(tool)
    if warnings:
        # their messages quote the manifest's field names: shown as its text is
        meta["warnings"] = reasons_for_model([p.to_dict() for p in warnings])
    untyped = Tool(name=tool.name, input_description=for_model(tool.input_description))
    result: Dict[str, Any] = {
        "name": exported,
        # the title clients show first is the MCP name, never the mech's sentence (adv29yt)
        "title": exported,
        "description": prose_for_model(tool.description)
        or f"Mech tool {label_for_model(tool.name)}.",
        "annotations": {"title": exported, "openWorldHint": True},
        "_meta": {META_KEY: meta},
    }
    try:
        tool = tool_for_model(tool)
        result["inputSchema"] = call_schema(tool)
        output = output_object_schema(tool)
        if output is not None:
            result["outputSchema"] = output
        return with_withheld_note(_checked(result, tool))
    except RecursionError:  # a schema nested beyond what Python can walk
        result.pop("outputSchema", None)
        result["inputSchema"] = call_schema(untyped)
        meta["problems"] = ["/inputSchema: nested too deeply; served as free text"]
        return result


def withheld_note_of(entry: Dict[str, Any]) -> str:
    """The note on an MCP Tool's withheld schema text, from its served schemas.

    :param entry: MCP Tool JSON.
    :return: :func:`..model.withheld_text.withheld_note` of the placeholders in its
        ``inputSchema`` and ``outputSchema`` ("" when there are none).
    """
    return withheld_note(
        tuple(
            place
            for key in ("inputSchema", "outputSchema")
            if isinstance(entry.get(key), dict)
            for place in withheld_places(entry[key], f"/{key}")
        )
    )


def with_withheld_note(entry: Dict[str, Any]) -> Dict[str, Any]:
    """An MCP Tool whose description ends with the note on its withheld text, if any.

    The mech's text is cut to leave the note room within
    :data:`..model.untrusted_text.MAX_TEXT_CHARS` (so a reader capping the description
    keeps it whole). The MCP server composes its own description: it moves this exact
    paragraph to its own part (``mcp_server.server_notes``).

    :param entry: MCP Tool JSON (changed in place).
    :return: ``entry``.
    """
    note = withheld_note_of(entry)
    if note:
        room = max(0, MAX_TEXT_CHARS - len(note) - 2)
        entry["description"] = f"{for_model(entry['description'], room)}\n\n{note}"
    return entry


def mcp_tool_for_model(entry: Dict[str, Any]) -> Dict[str, Any]:
    """An MCP Tool's JSON with its text as a model may read it (idempotent).

    For Tools not built here (e.g. read from another agent's ``GET /tools``): the
    ``title`` and ``annotations.title`` become the ``name`` (as :func:`to_mcp_tool`
    titles a tool: a title is what clients show first, so never the mech's sentence,
    adv29yt); the ``description`` and every prose and value string of ``inputSchema``
    and ``outputSchema`` go through :mod:`..model.untrusted_text`, their flagged text
    withheld (:func:`..model.withheld_text.withheld_schema`);
    ``name`` (already within the MCP name rule) and ``_meta`` are kept, but for the
    sentences in ``_meta[META_KEY]``: its ``warnings``' messages and its dropped
    ``problems`` quote the manifest's field and property names
    (:func:`.quoted_text.reasons_for_model`, ``sentence_for_model``: adv29o). A Tool from
    :func:`to_mcp_tool` comes back equal.

    :param entry: MCP Tool JSON (not modified).
    :return: a new dict (schemas nested deeper than Python walks raise RecursionError).
    """
    out = dict(entry)
    if isinstance(out.get("description"), str):
        out["description"] = prose_for_model(out["description"], MAX_TEXT_CHARS)
    title = out.get("name") if isinstance(out.get("name"), str) else out.get("title")
    if isinstance(title, str):
        out["title"] = label_for_model(title)
    annotations = out.get("annotations")
    if isinstance(annotations, dict) and isinstance(title, str):
        out["annotations"] = dict(annotations, title=label_for_model(title))
    for key in ("inputSchema", "outputSchema"):
        if key in out:
            arguments = key == "inputSchema"
            out[key] = withheld_schema(schema_for_model(out[key]), arguments).schema
    meta = out.get("_meta")
    ours = meta.get(META_KEY) if isinstance(meta, dict) else None
    if isinstance(meta, dict) and isinstance(ours, dict):
        said = dict(ours)
        if isinstance(ours.get("warnings"), list):
            said["warnings"] = reasons_for_model(copy.deepcopy(ours["warnings"]))
        if isinstance(ours.get("problems"), list):
            said["problems"] = [
                sentence_for_model(p) if isinstance(p, str) else p
                for p in ours["problems"]
            ]
        out["_meta"] = {**meta, META_KEY: said}
    return out


def same_signature(tool: Tool, other: Tool) -> bool:
    """Whether two offers of a name take the same arguments.

    Output schemas are not compared: a caller's arguments are what must fit, and the
    response is checked against the offering mech's own output schema anyway.

    :param tool: one offer.
    :param other: another offer (of the same name, usually).
    :return: True when their arguments are equal.
    """
    return tool.arguments == other.arguments


def offered_tool(tools: Sequence[Tool], name: Optional[str] = None) -> Dict[str, Any]:
    """One MCP Tool for a tool name several mechs may offer (the first offer describes it).

    Any mech may register a tool under a name another mech already offers, with other
    arguments. The served schema is the first offer's, so ``schema_mechs`` says which
    mechs take exactly those arguments: a caller that validated against the served schema
    sends only to those, and ``conflicting_schemas`` warns that some offers differ
    (``GET /tools/<name>`` shows each offer's own arguments).

    :param tools: every mech's tool of one name, ref order (non-empty).
    :param name: the MCP-safe unique name (default: sanitised).
    :return: :func:`to_mcp_tool` of the first, ``_meta[META_KEY]`` extended with
        ``mechs`` (every offering mech's key), ``collision`` (more than one offer),
        ``schema_mechs`` (the keys of the mechs whose offer has the served arguments) and ``conflicting_schemas`` (some offer differs).
    """
    entry = to_mcp_tool(tools[0], name)
    meta = entry["_meta"][META_KEY]
    offers = [(t, t.provenance.mech) for t in tools if t.provenance.mech]
    meta["mechs"] = [mech.key for _, mech in offers]
    meta["collision"] = len(tools) > 1
    matching = [mech.key for t, mech in offers if same_signature(t, tools[0])]
    meta["schema_mechs"] = matching
    meta["conflicting_schemas"] = len(matching) < len(offers)
    return entry


def with_lookalike_warning(
    entry: Dict[str, Any], problem: Optional[Problem]
) -> Dict[str, Any]:
    """An MCP Tool carrying its name's look-alike warning, titled by its ASCII MCP name.

    The same warning (``catalogue.lookalikes.lookalike_problems``: code
    ``lookalike_tool_name``, one wording) wherever a tool is shown: the agent's
    ``GET /tools`` and ``GET /tools/<name>``, the MCP server's ``tools/list``,
    ``search_tools`` and ``describe_tool``, the CLI's ``list``, ``search`` and ``export``.

    :param entry: the MCP Tool JSON (not modified).
    :param problem: the name's warning (None: none).
    :return: ``entry`` itself when there is no warning; else a copy whose
        ``_meta[META_KEY]["warnings"]`` holds it (once: a Tool that already carries a
        warning of that code, as an agent serves it, keeps its own) and whose ``title``
        and ``annotations.title`` are its ``name`` (never a homoglyph).
    """
    if problem is None:
        return entry
    flagged = copy.deepcopy(entry)
    meta = flagged.setdefault("_meta", {}).setdefault(META_KEY, {})
    warnings = list(meta.get("warnings") or [])
    if not any(w.get("code") == problem.code for w in warnings):
        warnings.append(reasons_for_model(problem.to_dict()))
    meta["warnings"] = warnings
    flagged["title"] = flagged["name"]
    flagged.setdefault("annotations", {})["title"] = flagged["name"]
    return flagged


def tools_list_result(
    entries: List[Dict[str, Any]],
    next_cursor: Optional[str] = None,
    ttl_ms: int = DEFAULT_TTL_MS,
) -> Dict[str, Any]:
    """A ``tools/list`` result of revision :data:`MCP_PROTOCOL_VERSION`.

    :param entries: MCP Tools, in the order to serve.
    :param next_cursor: the next page's cursor, if any.
    :param ttl_ms: how long a client may cache the result, milliseconds.
    :return: ``{"tools", "resultType", "ttlMs", "cacheScope", "nextCursor"?}``.
    """
    result: Dict[str, Any] = {
        "tools": entries,
        "resultType": RESULT_TYPE,
        "ttlMs": ttl_ms,
        "cacheScope": CACHE_SCOPE,
    }
    if next_cursor is not None:
        result["nextCursor"] = next_cursor
    return result


def to_mcp_tools(tools: Iterable[Tool]) -> List[Dict[str, Any]]:
    """MCP Tools for several tools, names unique across the list.

    :param tools: model tools (e.g. one mech's, or a catalogue's de-duplicated by name).
    :return: the list, in input order; a repeated tool name is exported once.
    """
    return [to_mcp_tool(t, name) for t, name in named_once(tools, MCP_TOOL_RULE)]


def to_mcp_tools_list_result(tools: Iterable[Tool]) -> Dict[str, Any]:
    """Return the ``tools/list`` result for some tools (one page, no cursor).

    :param tools: model tools.
    :return: :func:`tools_list_result` of :func:`to_mcp_tools`.
    """
    return tools_list_result(to_mcp_tools(tools))


def catalogue_to_mcp_tools(catalogue: Catalogue) -> List[Dict[str, Any]]:
    """MCP Tools for a whole catalogue: one per distinct tool name.

    Two mechs may claim the same tool name: the first in mech-ref order describes it, and
    ``_meta[META_KEY]["mechs"]`` lists the key (:attr:`.tool.MechRef.key`) of every mech
    offering it, so a caller can pick one.

    :param catalogue: the catalogue.
    :return: the tools, in catalogue order (mechs by ref, tools in manifest order).
    """
    exported = []
    for tool, name in named_once(catalogue.tools(), MCP_TOOL_RULE):
        item = to_mcp_tool(tool, name)
        item["_meta"][META_KEY]["mechs"] = [
            t.provenance.mech.key
            for t in catalogue.tools_named(tool.name)
            if t.provenance.mech is not None
        ]
        exported.append(item)
    return exported
