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
"""

import json
import math
from typing import Any, Mapping, Tuple

from jsonschema import Draft202012Validator
from mech_catalogue_core.exporters.js_integers import (
    integers_as_text,
)
from mech_catalogue_core.manifest.validation import nesting_depth
from mech_catalogue_core.model.limits import DEFAULT_LIMITS

#: deepest array/object nesting of a delivered response read as structured content: the
#: manifest cap (``Limits.max_depth``, 64). pydantic-core, which the SDK serialises
#: results with, refuses a few hundred levels ("Maximum serialization depth exceeded")
#: and ``json.loads`` a few thousand (``RecursionError``)
MAX_RESPONSE_DEPTH = DEFAULT_LIMITS.max_depth

#: most decimal digits of an integer in structured content: a uint256 (a wei amount, a
#: marketplace request id) has at most 78; longer ones are no chain quantity
MAX_INTEGER_DIGITS = 78


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
        return (
            json.loads(
                text,
                parse_constant=_no_constant,
                parse_float=_finite_float,
                parse_int=_bounded_int,
            ),
            "",
        )
    except _Unstructured as exc:
        return None, str(exc)
    except (ValueError, RecursionError, UnicodeDecodeError):
        return None, "it is not JSON"


def structured_content(schema: Mapping[str, Any], body: bytes) -> Tuple[Any, str]:
    """The response as structured content when it validates against the output schema.

    The schema may describe the whole response document (mech-server's ``{"requestId",
    "result", "prompt", ...}``) or the tool's own result (the document's ``result``,
    decoded when it is JSON text); the first that validates is returned. Integers
    beyond +-(2**53-1) (the 77-digit ``requestId``) are given as decimal strings
    (:func:`~mech_catalogue_core.exporters.js_integers.integers_as_text`) after the
    response, as delivered, validated against the mech's own schema: a digit string where
    the mech's schema says integer is refused, although the schema as served
    (:func:`~mech_catalogue_core.exporters.js_integers.schema_with_integer_text`) accepts
    such strings so that clients can check what the server returns. Never raises:
    a response that is no bounded JSON (:func:`decode_response`) or that the validator
    cannot check (e.g. ``OverflowError`` of ``multipleOf``) is a reason, not an error.

    :param schema: the tool's ``outputSchema``.
    :param body: the verified response bytes.
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
    for candidate in candidates:
        try:
            validator = Draft202012Validator(dict(schema))
            errors = sorted(validator.iter_errors(candidate), key=str)
        except Exception as exc:  # pylint: disable=broad-exception-caught
            # a stranger's schema meeting a mech's response: whatever it raises, the
            # answer is still returned (as text)
            return (
                None,
                f"checking it against the output schema failed ({type(exc).__name__})",
            )
        if not errors:
            return integers_as_text(candidate), ""
        first = first or errors[0]
    assert first is not None  # nosec: candidates is never empty
    # named by the served schema's own path and keyword only: jsonschema's message and
    # the instance path quote the mech's values and keys, which may hide text, and this
    # note is read as the server's words, outside the untrusted answer
    where = "/".join(str(p) for p in first.absolute_schema_path) or "(root)"
    return (
        None,
        f"the response does not match the output schema ({first.validator!r} at "
        f"schema path {where[:200]})",
    )
