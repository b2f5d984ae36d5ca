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

"""A consumer's choice: one mech request for a tool of the agreed catalogue (pure).

What a service chained after the catalogue rounds decides before mech-interact's
``MechRequestRound`` (docs/running.md, "Composing with mech-interact"):

1. :func:`find_tool`: the tool must be offered by a usable entry (status ``ok``) whose
   marketplace facts this period are rankable (:attr:`MechFacts.rankable`): mech-interact's
   ranking takes ``log(max_delivery_rate)`` and raises on the zeros an entry without facts
   carries in ``mechs_info``;
2. :func:`check_arguments`: the call's typed arguments must match the tool's input schema
   (:meth:`Tool.input_schema`, JSON Schema 2020-12, checked with ``jsonschema``);
3. :func:`mech_request`: the synchronized-data updates mech-interact v0.32.3 reads
   (its ``SynchronizedData.mech_requests``, ``mech_tool``, ``is_marketplace_v2``): a JSON list
   of one ``MechMetadata`` (``prompt``, ``tool``, ``nonce``, ``extra_attributes`` = the typed
   arguments, which mech-interact merges into the request's IPFS payload).

Nothing here reads the network; the money side (which mech is paid, how much) is
mech-interact's ranking over the agreed ``mechs_info``, never text from a manifest.
"""

import hashlib
import json
from typing import Any, Dict, List, Mapping, Tuple

from jsonschema import Draft202012Validator
from mech_catalogue_core.model.catalogue import STATUS_OK, Catalogue, Mech
from mech_catalogue_core.model.tool import Tool

#: mech-interact v0.32.3's synchronized-data keys the request writes
#: (``mech_interact_abci/states/base.py``: ``SynchronizedData.mech_requests`` ...)
MECH_REQUESTS, MECH_TOOL, IS_MARKETPLACE_V2 = (
    "mech_requests",
    "mech_tool",
    "is_marketplace_v2",
)


class MechRequestError(ValueError):
    """No request can be made from the catalogue; the message says why and what to do."""


def offering_mechs(catalogue: Catalogue, tool_name: str) -> List[Tuple[Mech, Tool]]:
    """Return the usable entries offering a tool, with that entry's tool description.

    :param catalogue: the agreed catalogue.
    :param tool_name: the tool name (exact).
    :return: ``(entry, tool)`` pairs of status-``ok`` entries listing ``tool_name``, in
        catalogue order (every entry, rankable or not).
    """
    return [
        (mech, tool)
        for mech in catalogue.mechs
        if mech.status == STATUS_OK
        for tool in mech.tools
        if tool.name == tool_name
    ]


def find_tool(catalogue: Catalogue, tool_name: str) -> Tuple[Tool, int]:
    """Find a tool offered by usable entries that have rankable marketplace facts.

    :param catalogue: the agreed catalogue.
    :param tool_name: the tool name.
    :return: the tool's description (of the first such entry, catalogue order) and how
        many such entries offer it.
    :raises MechRequestError: when no usable entry offers it (the message lists the
        offered tools), or none of those has rankable facts this period.
    """
    listed = offering_mechs(catalogue, tool_name)
    if not listed:
        offered = sorted(
            {t.name for m in catalogue.mechs if m.status == STATUS_OK for t in m.tools}
        )
        raise MechRequestError(
            f"no usable mech in the catalogue offers tool {tool_name!r}; set the "
            f"requested tool to one of: {offered}"
        )
    offers = [
        (mech, tool)
        for mech, tool in listed
        if any(facts.rankable for facts in mech.marketplace)
    ]
    if not offers:
        raise MechRequestError(
            f"tool {tool_name!r} is offered by {len(listed)} entries, none with "
            "marketplace facts this period (marketplace address unset or the read "
            "failed): mech-interact cannot rank them; no request this period"
        )
    return offers[0][1], len(offers)


def check_arguments(tool: Tool, arguments: Mapping[str, Any]) -> None:
    """Validate a call's keyword arguments against the tool's input schema.

    :param tool: the tool.
    :param arguments: the typed arguments (JSON values by argument name).
    :raises MechRequestError: listing every violation (JSON path and message).
    """
    validator = Draft202012Validator(tool.input_schema())
    errors = sorted(validator.iter_errors(dict(arguments)), key=lambda e: list(e.path))
    if errors:
        detail = "; ".join(
            f"{'/'.join(str(p) for p in e.path) or '(arguments)'}: {e.message}"
            for e in errors
        )
        raise MechRequestError(
            f"the arguments for tool {tool.name!r} do not match its input schema: "
            f"{detail}"
        )


def call_arguments(
    tool: Tool, prompt: str, arguments: Mapping[str, Any]
) -> Dict[str, Any]:
    """The arguments the tool's input schema sees: the prompt too, when it declares one.

    Most manifests give the free text as a ``prompt`` input (the MCP ``tools/list`` shape
    lists it among the arguments); mech-interact sends it as the payload's ``prompt``, and
    the other arguments beside it (``extra_attributes``).

    :param tool: the tool.
    :param prompt: the request's free text.
    :param arguments: the typed arguments without the prompt.
    :return: ``{"prompt": prompt, **arguments}`` when the schema has a ``prompt``
        property, else ``arguments``.
    :raises MechRequestError: when ``arguments`` holds a ``prompt`` itself (it would
        replace the payload's prompt in mech-interact's merge).
    """
    if "prompt" in arguments:
        raise MechRequestError(
            f"the arguments for tool {tool.name!r} hold a 'prompt': give the request's "
            "text as the prompt, not among the typed arguments"
        )
    properties = tool.input_schema().get("properties", {})
    if "prompt" in properties:
        return {"prompt": prompt, **arguments}
    return dict(arguments)


def request_nonce(catalogue_digest: str, period: int, tool_name: str) -> str:
    """A nonce every agent computes alike (mech-interact's ``MechMetadata.nonce``).

    :param catalogue_digest: the agreed catalogue digest.
    :param period: the period count.
    :param tool_name: the requested tool.
    :return: 32 hex characters of SHA-256 over the three (agents agree on the payload
        only when they compute the same nonce; a random one would never be agreed).
    """
    seed = json.dumps([catalogue_digest, period, tool_name]).encode()
    return hashlib.sha256(seed).hexdigest()[:32]


def mech_request(
    catalogue: Catalogue,
    tool_name: str,
    prompt: str,
    arguments: Mapping[str, Any],
    nonce: str,
) -> Dict[str, Any]:
    """Build the synchronized-data updates for one mech request.

    :param catalogue: the agreed catalogue.
    :param tool_name: the tool to call.
    :param prompt: the request's free text.
    :param arguments: the tool's typed arguments.
    :param nonce: the request nonce (:func:`request_nonce`).
    :return: ``{"mech_requests": JSON list of one MechMetadata, "mech_tool": str,
        "is_marketplace_v2": True}``; :class:`MechRequestError` (from :func:`find_tool`,
        :func:`call_arguments` or :func:`check_arguments`) when the tool is not offered
        with rankable facts or the arguments do not match its schema.
    """
    tool, _ = find_tool(catalogue, tool_name)
    check_arguments(tool, call_arguments(tool, prompt, arguments))
    request = {
        "prompt": prompt,
        "tool": tool_name,
        "nonce": nonce,
        "extra_attributes": dict(arguments),
    }
    return {
        MECH_REQUESTS: json.dumps([request], sort_keys=True),
        MECH_TOOL: tool_name,
        IS_MARKETPLACE_V2: True,
    }
