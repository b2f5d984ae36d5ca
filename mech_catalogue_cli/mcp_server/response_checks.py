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

"""A delivered response, read as bounded JSON and checked against what was paid for.

- :func:`decode_response` / :func:`structured_content`: a delivered response read as
  bounded JSON (depth, finite numbers, integers of at most a uint256's digits) and
  checked against the tool's ``outputSchema``; anything else is returned as text.
- :func:`client_refusal`: why an MCP client would refuse a structured result, checked
  as the MCP SDK's client checks it, so that no structured answer the server returns
  is refused by the client it was paid for (adv29i).
"""

import json
import math
from typing import Any, Mapping, Optional, Sequence, Tuple

from jsonschema import SchemaError
from jsonschema.exceptions import best_match
from jsonschema.validators import validator_for
from mech_catalogue_core.exporters.js_integers import (
    integers_as_text,
    schema_with_integer_text,
)
from mech_catalogue_core.manifest.json_equality import JsonEqualityValidator
from mech_catalogue_core.manifest.validation import nesting_depth
from mech_catalogue_core.model.limits import DEFAULT_LIMITS
from mech_catalogue_core.model.quoted_text import quoted_for_model
from mech_catalogue_core.model.untrusted_text import for_model
from referencing import Registry

from .answer_envelope import envelope

#: deepest array/object nesting of a delivered response read as structured content: the
#: manifest cap (``Limits.max_depth``, 64). pydantic-core, which the SDK serialises
#: results with, refuses a few hundred levels ("Maximum serialization depth exceeded")
#: and ``json.loads`` a few thousand (``RecursionError``)
MAX_RESPONSE_DEPTH = DEFAULT_LIMITS.max_depth

#: most decimal digits of an integer in structured content: a uint256 (a wei amount, a
#: marketplace request id) has at most 78; longer ones are no chain quantity
MAX_INTEGER_DIGITS = 78

#: characters of a schema path a reason quotes at most (the cut said)
MAX_SCHEMA_PATH_CHARS = 200


class _Unstructured(ValueError):
    """A delivered JSON text that is no bounded JSON value; the message says why."""


def _no_constant(name: str) -> Any:
    raise _Unstructured(f"it holds {name}, which is not JSON (RFC 8259)")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Unstructured(f"the number {text[:40]} overflows a double")
    return value


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INTEGER_DIGITS:
        raise _Unstructured(
            f"an integer has {digits} digits, over the {MAX_INTEGER_DIGITS} of a uint256"
        )
    return int(text)


#: one decoder for every response and string read (``json.loads`` builds one a call,
#: which many short strings of an answer pay for each: adv29l); it keeps no state
#: between calls, and is shared across threads as ``json.loads``'s own default one is
_DECODER = json.JSONDecoder(
    parse_constant=_no_constant, parse_float=_finite_float, parse_int=_bounded_int
)


def decode_response(text: Any) -> Tuple[Any, str]:
    """Decode a delivered response (or its ``result`` text) as a bounded JSON value.

    Never raises: nesting is measured without recursion first
    (:func:`mech_catalogue_core.manifest.validation.nesting_depth`), then ``json.loads``
    refuses ``NaN``/``Infinity``, numbers that overflow a double and integers over
    :data:`MAX_INTEGER_DIGITS` digits.

    :param text: the bytes or string delivered.
    :return: ``(value, "")``, or ``(None, why it is not structured)``.
    """
    if not isinstance(text, (bytes, str)):
        return None, f"it is a {type(text).__name__}, not JSON text"
    try:
        depth = nesting_depth(text, MAX_RESPONSE_DEPTH)
        if depth > MAX_RESPONSE_DEPTH:
            return None, f"it is nested too deeply (over {MAX_RESPONSE_DEPTH} levels)"
        if isinstance(text, bytes):  # as json.loads reads bytes
            text = text.decode(json.detect_encoding(text), "surrogatepass")
        elif text.startswith("\ufeff"):  # as json.loads refuses a str
            return None, "it is not JSON"
        return _DECODER.decode(text), ""
    except _Unstructured as exc:
        return None, str(exc)
    except (ValueError, RecursionError, UnicodeDecodeError):
        return None, "it is not JSON"


def _schema_place(error: Any) -> str:
    """Where a validation error is, named by the schema's own path and keyword only.

    jsonschema's message and the instance path quote the mech's values and keys, which
    may hide text, and this note is read as the server's words, outside the untrusted
    answer. The schema path holds the schema's property names, the mech's too: it is
    shown as ``tools/list`` shows text (adv29o).

    :param error: a ``jsonschema`` ``ValidationError`` or ``SchemaError``.
    :return: e.g. ``'not' at schema path properties/requestId/not``, the path
        ``untrusted_text.for_model`` capped at ``MAX_SCHEMA_PATH_CHARS`` (the cut said).
    """
    where = "/".join(str(p) for p in error.absolute_schema_path) or "(root)"
    return (
        f"{quoted_for_model(error.validator)} at schema path "
        f"{for_model(where, MAX_SCHEMA_PATH_CHARS)}"
    )


def client_refusal(served_schema: Mapping[str, Any], value: Any) -> str:
    """Why an MCP client would refuse a structured result, as the MCP SDK's client checks.

    The client (``mcp.client.session.ClientSession.validate_tool_result``, mcp 2.3)
    raises instead of returning a non-error result whose ``structuredContent`` fails
    the tool's listed ``outputSchema``: it picks the validator class by the schema's
    ``$schema`` (``jsonschema.validators.validator_for``, 2020-12 without one), checks
    the schema against its metaschema, resolves ``$ref`` within the schema only (an
    empty ``referencing.Registry``) and takes ``jsonschema.exceptions.best_match`` of
    the errors. The same is done here. Never raises: whatever the check raises (a
    ``$ref`` it cannot resolve, ``OverflowError`` of ``multipleOf``...) is a reason,
    as the client would raise too.

    :param served_schema: the ``outputSchema`` as ``tools/list`` serves it.
    :param value: the ``structuredContent`` as the result carries it.
    :return: "" when the client accepts it, else one clause saying why not.
    """
    said = "MCP clients would refuse it"
    try:
        schema = dict(served_schema)
        validator_class = validator_for(schema)
        try:
            validator_class.check_schema(schema)
        except SchemaError as exc:
            return (
                f"the output schema served is no valid JSON Schema ({_schema_place(exc)}), "
                f"so {said}"
            )
        error = best_match(
            validator_class(schema, registry=Registry()).iter_errors(value)
        )
    except Exception as exc:  # pylint: disable=broad-exception-caught
        # a stranger's schema meeting a mech's response: the client raises too
        return f"checking its served form failed ({type(exc).__name__}), so {said}"
    if error is None:
        return ""
    return (
        "its structured form as served (integers beyond +-(2**53-1) as decimal "
        "strings) does not match the output schema served "
        f"({_schema_place(error)}), so {said}"
    )


#: the reason an answer is text when a schema the client listed earlier refuses it
LISTED_SCHEMA_CHANGED = (
    "the tool's output schema changed since this client listed the tools: {why}; "
    "list the tools again and call again with the same arguments to read it "
    "structured (that will not pay again)"
)


#: the note of the envelope a structured value is checked in (the server's own
#: ``server_note`` schema, a string, is the only one that reads it)
CHECKED_NOTE = "this server's note"


def _listed_refusal(listed: Sequence[Optional[Mapping[str, Any]]], served: Any) -> str:
    """Why a client holding one of ``listed`` would refuse ``served`` in its envelope.

    :param listed: the envelopes listed, the current one first (None: none).
    :param served: the structured value as it would be returned.
    :return: "" when each accepts it, else the first reason.
    """
    value = envelope(CHECKED_NOTE, served)
    for index, schema in enumerate(listed):
        why = client_refusal(schema, value) if schema else ""
        if why and index:
            return LISTED_SCHEMA_CHANGED.format(
                why=why.replace("output schema served", "schema it listed")
            )
        if why:
            return why.replace("output schema served", "output schema listed")
    return ""


def structured_content(
    schema: Mapping[str, Any],
    body: bytes,
    listed: Sequence[Optional[Mapping[str, Any]]] = (),
) -> Tuple[Any, str]:
    """The response as structured content when it validates against the output schema.

    The schema may describe the whole response document (mech-server's ``{"requestId",
    "result", "prompt", ...}``) or the tool's own result (the document's ``result``,
    decoded when it is JSON text); the first that validates is returned. Integers
    beyond +-(2**53-1) (the 77-digit ``requestId``) are given as decimal strings
    (:func:`~mech_catalogue_core.exporters.js_integers.integers_as_text`) after the
    response, as delivered, validated against the mech's own schema: a digit string where
    the mech's schema says integer is refused, although the schema as served
    (:func:`~mech_catalogue_core.exporters.js_integers.schema_with_integer_text`) accepts
    such strings so that clients can check what the server returns. What is returned
    then validates against the schema as served, checked as the MCP SDK's client checks
    (:func:`client_refusal`): a keyword a number meets and its decimal string does not
    (``not``, ``maxLength`` on an untyped property, ``uniqueItems``, ``if``/``then``...)
    makes the answer text with the reason (adv29i), never a result the client refuses
    at every read. Never raises: a response that is no bounded JSON
    (:func:`decode_response`) or that the validator cannot check (e.g.
    ``OverflowError`` of ``multipleOf``) is a reason, not an error.

    :param schema: the tool's ``outputSchema``, as the mech declared it or as served
        (:func:`~mech_catalogue_core.exporters.js_integers.schema_with_integer_text`
        changes nothing more in a served one).
    :param body: the verified response bytes.
    :param listed: the envelopes (:mod:`.answer_envelope`) the session's client may
        validate the result against, exactly as they were listed: the one listed now
        first, then any listed earlier (:mod:`.listed_schemas`; None items: listed
        without one, nothing checked). What is returned, inside an envelope
        (``answer_envelope.envelope``; the note is the server's string, which only the
        server's own ``server_note`` schema reads), must match each, checked as the
        MCP SDK's client checks (:func:`client_refusal`): else it is text, saying the
        schema listed refuses it (adv29zz E1: a reference that resolved in the mech's
        schema alone and not nested) or changed since the client listed it (adv29j).
    :return: ``(structured or None, why not: "" when fine)``.
    """
    document, problem = decode_response(body)
    if problem:
        return None, f"the response is not structured content: {problem}"
    candidates = [document]
    if isinstance(document, dict) and "result" in document:
        result = document["result"]
        if isinstance(result, str):
            decoded, _ = decode_response(result)
            result = result if decoded is None else decoded
        candidates.append(result)
    first = None
    refused = ""
    for candidate in candidates:
        try:
            # an empty registry: no remote $ref is fetched (jsonschema's default
            # retrieves one over the network: a stranger's URL, a stall)
            validator = JsonEqualityValidator(dict(schema), registry=Registry())
            errors = sorted(validator.iter_errors(candidate), key=str)
            served_schema = schema_with_integer_text(dict(schema)) if not errors else {}
        except Exception as exc:  # pylint: disable=broad-exception-caught
            # a stranger's schema meeting a mech's response: whatever it raises, the
            # answer is still returned (as text)
            return (
                None,
                f"checking it against the output schema failed ({type(exc).__name__})",
            )
        if not errors:
            served = integers_as_text(candidate)
            refused = client_refusal(served_schema, served) or _listed_refusal(
                listed, served
            )
            if not refused:
                return served, ""
            continue  # the tool's own result may still be served as it is
        first = first or errors[0]
    if refused:
        return None, refused
    assert first is not None  # nosec: candidates is never empty
    return (
        None,
        "the response does not match the mech's declared output schema "
        f"({_schema_place(first)})",
    )
