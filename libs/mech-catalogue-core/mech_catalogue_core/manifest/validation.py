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

"""Strict decoding of manifest bytes and validation against the published specification.

Decoding (:func:`decode_json`) accepts I-JSON only (RFC 7493), so that the canonical form
(RFC 8785) of anything decoded exists and is the same on every agent:

- UTF-8 only, no byte order mark (RFC 8259 s8.1), at most ``Limits.max_bytes`` bytes;
- nesting depth checked by scanning brackets *before* ``json.loads`` (never recursion);
- no duplicate object keys (``object_pairs_hook``), no NaN/Infinity, no float overflow,
  integers within +-(2**53-1), no lone surrogates.

``orjson`` (compiled) decodes first; its value is taken only when it cannot differ from
the strict decode's (:func:`_fast_decode`): it refuses NaN, Infinity, overflowing numbers,
lone surrogates, control characters and trailing data as the strict path does; an
integer literal of 16 digits or more anywhere sends the text to the strict path (orjson
keeps such integers exact or as doubles where I-JSON rules differ); and a duplicate key
(which orjson resolves silently) shows as fewer key/value pairs in the value than colons
between strings in the text. Any doubt, or any failure, is decided by the strict path, so
the result and every error message are the strict decode's.

:func:`validate_manifest` checks a decoded document against ``spec/manifest-v1.schema.json``
with ``jsonschema`` (Draft 2020-12). :func:`quality_problems` adds the warnings about a
valid but weak manifest (no name or description, ``any``-typed arguments) and the
catalogue's own text warnings about the mech's own fields
(:func:`.mech_text.mech_text_problems`) and its tools (:func:`.untrusted_text.tools_text_problems`:
invisible text, instruction-like text, an argument asking for a secret) that every command
reports (``validate``, ``show``, ``export``, ``generate``, ``publish``) and
``validate --strict`` fails on; readers do not need them. Nothing here raises on any input: every rejection is
a :class:`.problems.Problem`.
"""

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Tuple, Union

import jsonschema
import orjson
from jsonschema.validators import Draft202012Validator
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.canonical import (
    MAX_SAFE_INTEGER,
    canonical_bytes,
)
from mech_catalogue_core.model.limits import (
    DEFAULT_LIMITS,
    Limits,
)
from mech_catalogue_core.model.mech_text import mech_text_problems
from mech_catalogue_core.model.memo import (
    bounded_memo,
    digest_key,
)
from mech_catalogue_core.model.references import (
    MANIFEST_SPEC_URL,
)
from mech_catalogue_core.model.untrusted_text import (
    contract_hidden_in,
    tools_text_problems,
)

if TYPE_CHECKING:  # parsing imports this module; the model is only a type here
    from mech_catalogue_core.model.catalogue import (
        Manifest,
    )

SPEC_PATH = Path(__file__).parent / "spec" / "manifest-v1.schema.json"
#: entries of the embedded-schema check memo (:func:`schema_error`)
SCHEMA_CHECK_MEMO_ENTRIES = 4096
#: characters an entry may hold: its key (the schema text, or a sha2-256 when longer than
#: ``memo.DIGEST_KEY_OVER``) and the error message
SCHEMA_CHECK_MEMO_CHARS = 1 << 13
#: characters the memo holds at most
SCHEMA_CHECK_MEMO_TOTAL = 1 << 22

_NON_STRUCTURAL = bytes(b for b in range(256) if b not in b'"[]{}')
_DEPTH_DELTA = {ord("["): 1, ord("]"): -1}
# Depth does not depend on the bracket kind (json.loads rejects mismatches), so objects'
# braces are counted as brackets: one kind lets one bytes.replace peel exactly one level.
_BRACES_AS_BRACKETS = bytes.maketrans(b"{}", b"[]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# digits -> "0", every other byte -> " ": a run of 16 "0" is a run of 16 digits
_DIGITS_ONLY = bytes(
    ord("0") if chr(b).isdigit() and b < 128 else ord(" ") for b in range(256)
)
_LONG_DIGIT_RUN = b"0" * 16
_NOT_COLON_OR_QUOTE = bytes(b for b in range(256) if b not in b'":')


@dataclass(frozen=True)
class DecodeResult:
    """Outcome of :func:`decode_json`.

    :param value: the decoded JSON value (None when rejected; check ``problems``).
    :param problems: empty on success, else one error.
    """

    value: Any
    problems: Tuple[P.Problem, ...] = ()

    @property
    def ok(self) -> bool:
        """Return true when the bytes decoded.

        :return: True when the bytes decoded.
        """
        return not self.problems


class _Reject(ValueError):
    def __init__(self, problem: P.Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def _pairs(pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise _Reject(
                    P.error(
                        P.DUPLICATE_KEY,
                        f"The key {key[:80]!r} appears twice in one object; JSON readers "
                        "disagree on which value wins. Keep exactly one.",
                    )
                )
            seen.add(key)
    return obj


def _constant(name: str) -> Any:
    raise _Reject(
        P.error(
            P.NON_FINITE_NUMBER,
            f"{name} is not JSON (RFC 8259 allows only finite numbers); write a finite "
            "number or a string.",
        )
    )


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Reject(
            P.error(
                P.NON_FINITE_NUMBER,
                f"The number {text[:40]} overflows a double; write a smaller number or a string.",
            )
        )
    return value


def _int(text: str) -> Union[int, float]:
    # I-JSON numbers are doubles. An integer literal beyond +-(2**53-1) is kept (as the
    # double) only when it is that double's own RFC 8785 form, e.g. "10000000000000000"
    # for 1e16; a literal with more digits than a double holds would silently lose them.
    if len(text) <= 15:  # at most 15 digits: always within +-(2**53-1)
        return int(text)
    if len(text) <= 330:
        value = int(text)
        if abs(value) <= MAX_SAFE_INTEGER:
            return value
        as_float = float(text)
        if math.isfinite(as_float) and canonical_bytes(as_float) == text.encode(
            "ascii"
        ):
            return as_float
    raise _Reject(
        P.error(
            P.NUMBER_OUT_OF_RANGE,
            f"The integer {text[:40]} has more digits than a double holds (I-JSON, RFC 7493, "
            "keeps +-(2**53-1) exact); write large integers such as wei amounts as decimal "
            "strings (type uint256).",
        )
    )


def _decode_text(  # pylint: disable=too-many-return-statements
    data: Union[bytes, str], limits: Limits
) -> Union[str, P.Problem]:
    if isinstance(data, str):
        try:
            data = data.encode("utf-8")
        except UnicodeEncodeError:
            return P.error(
                P.NOT_UTF8, "The manifest text has lone surrogates; send UTF-8 bytes."
            )
    if not isinstance(data, (bytes, bytearray, memoryview)):
        return P.error(
            P.INVALID_JSON, f"Expected manifest bytes, got {type(data).__name__}."
        )
    data = bytes(data)
    if len(data) > limits.max_bytes:
        return P.error(
            P.TOO_LARGE,
            f"The manifest is {len(data)} bytes, over the cap of {limits.max_bytes}; "
            "split long descriptions or drop unused fields.",
        )
    if data.startswith(b"\xef\xbb\xbf"):
        return P.error(
            P.BYTE_ORDER_MARK,
            "The manifest starts with a UTF-8 byte order mark (EF BB BF); save it as "
            "UTF-8 without BOM (RFC 8259 s8.1) and publish it again.",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return P.error(
            P.NOT_UTF8,
            f"The manifest is not UTF-8 (bad byte at offset {exc.start}); re-encode it as UTF-8.",
        )
    if not text.strip(" \t\r\n"):
        return P.error(
            P.EMPTY_DOCUMENT,
            "The manifest is empty; publish a JSON object with `tools`.",
        )
    return text


def nesting_depth(text: Union[bytes, str], cap: int = -1) -> int:
    """Measure the deepest array/object nesting of JSON text, without recursion.

    No Python loop runs over characters either: only bytes methods do. Escaped
    backslashes and escaped quotes are removed, then every byte but ``"[]{}``; the quotes
    left pair up as string delimiters, so string contents drop out and the brackets left
    are structural. An unterminated string can only make the count higher.

    :param text: JSON text (UTF-8 bytes or str).
    :param cap: when >= 0, stop counting past ``cap``: the result is then ``cap + 1``.
    :return: the maximum nesting depth (0 for a scalar), or ``cap + 1`` when deeper.
    """
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if b"[" not in data and b"{" not in data:
        return 0
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    residue = data.translate(_BRACES_AS_BRACKETS, _NON_STRUCTURAL).replace(b'""', b"")
    if (
        b'"' in residue
    ):  # some string holds brackets: keep only what lies between strings
        residue = b"".join(residue.split(b'"')[::2])
    if cap >= 0:
        # Peel innermost pairs; each pass removes one level, all in C.
        peeled = residue
        for depth in range(cap + 1):
            if not peeled:
                return depth
            inner = peeled.replace(b"[]", b"")
            if inner == peeled:
                break  # unbalanced brackets: count exactly below
            peeled = inner
        else:
            return cap + 1
    depth = max(accumulate(map(_DEPTH_DELTA.__getitem__, residue)), default=0)
    return depth if cap < 0 else min(depth, cap + 1)


def _pair_count(text: bytes) -> int:
    """Count the colons outside strings of JSON text: its object members, in C.

    :param text: JSON text that decoded (so strings are closed and escapes valid).
    :return: how many ``key: value`` pairs the text writes.
    """
    if b"\\" in text:
        text = text.replace(b"\\\\", b"").replace(b'\\"', b"")
    residue = text.translate(None, _NOT_COLON_OR_QUOTE).replace(b'""', b"")
    if b'"' in residue:  # some string holds a colon: count only between strings
        residue = b"".join(residue.split(b'"')[::2])
    return residue.count(b":")


def _fast_decode(data: bytes) -> Any:
    """Decode with ``orjson`` when that is sure to give the strict decode's value.

    :param data: UTF-8 JSON text, already within the size and depth caps.
    :return: the value, or :data:`_UNDECIDED` (the strict path decides).
    """
    if _LONG_DIGIT_RUN in data.translate(_DIGITS_ONLY):
        return _UNDECIDED
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return _UNDECIDED
    if isinstance(value, (dict, list)) and _pair_count(data) != _pair_count(
        orjson.dumps(value)
    ):
        return _UNDECIDED  # a duplicate key: orjson kept one value silently
    return value


_UNDECIDED = object()


def _has_lone_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def decode_json(  # pylint: disable=too-many-return-statements
    data: Union[bytes, str], limits: Limits = DEFAULT_LIMITS
) -> DecodeResult:
    """Decode manifest bytes strictly (see module docstring). Never raises.

    :param data: the bytes as fetched (a str is encoded as UTF-8 first).
    :param limits: the caps.
    :return: the value, or None and exactly one error Problem.
    """
    text = _decode_text(data, limits)
    if isinstance(text, P.Problem):
        return DecodeResult(None, (text,))
    depth = nesting_depth(data if isinstance(data, bytes) else text, limits.max_depth)
    if depth > limits.max_depth:
        return DecodeResult(
            None,
            (
                P.error(
                    P.TOO_DEEP,
                    f"Arrays/objects are nested {depth} deep, over the cap of "
                    f"{limits.max_depth}; flatten the document.",
                ),
            ),
        )
    raw = data if isinstance(data, bytes) else text.encode("utf-8")
    value = _fast_decode(raw)
    if value is not _UNDECIDED:
        return DecodeResult(value)
    try:
        value = json.loads(
            text,
            object_pairs_hook=_pairs,
            parse_constant=_constant,
            parse_float=_float,
            parse_int=_int,
        )
    except _Reject as exc:
        return DecodeResult(None, (exc.problem,))
    except (ValueError, RecursionError) as exc:
        where = (
            f" at line {exc.lineno} column {exc.colno}"
            if isinstance(exc, json.JSONDecodeError)
            else ""
        )
        return DecodeResult(
            None,
            (
                P.error(
                    P.INVALID_JSON,
                    f"The manifest is not valid JSON{where}: {str(exc)[:120]}. Fix the syntax.",
                ),
            ),
        )
    if _SURROGATE_ESCAPE.search(text) and _has_lone_surrogate(value):
        return DecodeResult(
            None,
            (
                P.error(
                    P.INVALID_STRING,
                    "A string holds a lone UTF-16 surrogate escape (\\uD800-\\uDFFF unpaired); "
                    "it is not Unicode text. Remove it.",
                ),
            ),
        )
    return DecodeResult(value)


@lru_cache(maxsize=1)
def manifest_validator() -> Draft202012Validator:
    """Return a validator for ``spec/manifest-v1.schema.json`` (loaded once).

    :return: a validator for ``spec/manifest-v1.schema.json`` (loaded once).
    """
    schema = json.loads(SPEC_PATH.read_text(encoding="utf-8"))
    return Draft202012Validator(schema)


def validate_manifest(document: Any) -> Tuple[P.Problem, ...]:
    """Check a decoded manifest against the published specification (strict mode).

    Today's manifests (``tools`` + ``toolMetadata``, ``tools`` holding typed tool
    objects) pass; use this before publishing. Each message is one sentence naming the
    JSON Pointer and what to change (:func:`describe_error`), never a repr of the value
    or a JSON Schema keyword; a field gets at most one problem.

    :param document: a value from :func:`decode_json`.
    :return: SCHEMA_VIOLATION errors, one per JSON Pointer, in document order.
    """
    by_path: Dict[str, List[Tuple[int, str]]] = {}
    for err in manifest_validator().iter_errors(document):
        path, reason, rank = describe_error(err)
        by_path.setdefault(path, []).append((rank, reason))
    found = []
    for path in sorted(by_path, key=_pointer_key):
        reasons = sorted(set(by_path[path]))
        missing = [r for rank, r in reasons if rank == _RANK_REQUIRED]
        reason = (
            _missing_sentence(missing)
            if reasons[0][0] == _RANK_REQUIRED
            else reasons[0][1]
        )
        found.append(
            P.error(
                P.SCHEMA_VIOLATION,
                f"Field {_shown(path)} {reason} ({MANIFEST_SPEC_URL}).",
                path,
            )
        )
    return tuple(found)


def unreported(
    reported: Tuple[P.Problem, ...], schema: Tuple[P.Problem, ...]
) -> Tuple[P.Problem, ...]:
    """Drop the schema problems about a field the parser already reported.

    The parser and the schema often see the same fault (a tool name that is a number,
    an argument without identifier); a mech author should read it once, in the parser's
    words, which also say what was dropped.

    :param reported: the parser's problems.
    :param schema: problems from :func:`validate_manifest`.
    :return: the schema problems at a pointer that is neither a reported pointer nor
        inside one (the document pointer "" shadows nothing).
    """
    seen = {p.path for p in reported if p.path}
    return tuple(
        p
        for p in schema
        if not any(p.path == s or p.path.startswith(s + "/") for s in seen)
    )


_RANK_TYPE, _RANK_REQUIRED, _RANK_OTHER = 0, 1, 2
_MAX_SHOWN_PATH = 100
_INDEX = re.compile("[0-9]+")
_WANTED = {
    "string": "a string",
    "object": "an object",
    "array": "an array",
    "boolean": "true or false",
    "integer": "an integer",
    "number": "a number",
    "null": "null",
}
#: what a named definition of the v1 schema asks, for the errors its keywords raise
_DEFINITION_SENTENCES = {
    "toolName": "should be a tool name: 1 to 128 characters, not blank, without "
    "control characters",
    "identifier": "should be a keyword name: a letter or _, then letters, digits or _ "
    "(at most 128 characters)",
}


def _shown(path: str) -> str:
    if not path:
        return "(document)"
    if len(path) > _MAX_SHOWN_PATH:
        return path[:_MAX_SHOWN_PATH] + "..."
    return path


def _pointer_key(path: str) -> List[Tuple[int, Any]]:
    return [(0, int(x)) if _INDEX.fullmatch(x) else (1, x) for x in path.split("/")]


def _missing_sentence(names: List[str]) -> str:
    if len(names) == 1:
        return names[0]
    fields = ", ".join(n.split("`")[1] for n in names)
    return f"lacks required fields; add {fields}"


def _value_text(value: Any, limit: int = 40) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= limit else text[:limit] + "..."


def _definition_sentence(schema: Any) -> str:
    defs = manifest_validator().schema["$defs"]
    for name, sentence in _DEFINITION_SENTENCES.items():
        if schema is defs[name]:
            return sentence
    return ""


def describe_error(  # pylint: disable=too-many-return-statements,too-many-branches
    err: jsonschema.exceptions.ValidationError,
) -> Tuple[str, str, int]:
    """Say what to change for one ``jsonschema`` error, in the words of a mech author.

    :param err: an error of :func:`manifest_validator` (or of a meta-schema check).
    :return: (JSON Pointer of the field, a clause such as "should be an array, not a
        string", a rank: type errors first, then missing fields, then the rest).
    """
    path = P.pointer(*err.absolute_path)
    keyword, expected, value = err.validator, err.validator_value, err.instance
    if "propertyNames" in err.absolute_schema_path and isinstance(value, str):
        path = P.pointer(*err.absolute_path, value)  # the error is about the key itself
    named = _definition_sentence(err.schema)
    if keyword in ("anyOf", "oneOf") and err.context:
        deeper = [
            e
            for e in err.context
            if not (
                e.validator == "type" and len(e.absolute_path) == len(err.absolute_path)
            )
        ]
        if deeper:
            return describe_error(jsonschema.exceptions.best_match(deeper))
        if keyword == "oneOf" and not err.context:
            return path, "matches more than one accepted form; make it match one", 2
        return path, "has none of the accepted forms", _RANK_OTHER
    if keyword == "type":
        wanted = [expected] if isinstance(expected, str) else list(expected)
        words = " or ".join(_WANTED.get(w, str(w)) for w in wanted)
        return path, f"should be {words}, not {_kind_of(value)}", _RANK_TYPE
    if keyword == "required":
        missing = [r for r in expected if isinstance(value, dict) and r not in value]
        field = missing[0] if missing else expected[0]
        return path, f"lacks the required field `{field}`; add it", _RANK_REQUIRED
    if named:
        return path, named, _RANK_OTHER
    if keyword is None or (keyword == "not" and expected == {}):  # nothing allowed
        return path, "is not allowed here; remove it", _RANK_OTHER
    if keyword == "minLength":
        return path, "is empty; write a non-empty string", _RANK_OTHER
    if keyword in ("maxLength", "maxItems", "maxProperties"):
        unit = {"maxLength": "characters", "maxItems": "items"}.get(keyword, "fields")
        return (
            path,
            f"has {len(value)} {unit}, over the limit of {expected}; shorten it",
            2,
        )
    if keyword in ("minItems", "minProperties"):
        return path, f"needs at least {expected} entries; add some or remove it", 2
    if keyword == "uniqueItems":
        return path, "lists an entry twice; keep each once", _RANK_OTHER
    if keyword == "const":
        return path, f"should be {_value_text(expected)}", _RANK_OTHER
    if keyword == "enum":
        values = ", ".join(_value_text(v, 30) for v in list(expected)[:8])
        return path, f"should be one of: {values}", _RANK_OTHER
    if keyword in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        bound = "at least" if "inimum" in keyword else "at most"
        strict = " (exclusive)" if keyword.startswith("exclusive") else ""
        return path, f"should be {bound} {expected}{strict}", _RANK_OTHER
    if keyword == "pattern":
        return (
            path,
            f"should match the regular expression {_value_text(expected, 60)}",
            2,
        )
    return path, "has a value the v1 specification does not accept", _RANK_OTHER


def _kind_of(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    return {
        dict: "an object",
        list: "an array",
        str: "a string",
        float: "a number",
    }.get(type(value), "null")


#: deepest schema nesting the JSON Schema checks walk, refused by this count rather than
#: by the stack: ``jsonschema`` recurses about 11 Python frames a level, so 64 levels
#: (all the manifest's depth cap lets a raw schema have) leave a caller about 300 frames
#: under the default recursion limit of 1,000 (agents run with 100,000)
SCHEMA_CHECK_MAX_DEPTH = 64


@bounded_memo(
    SCHEMA_CHECK_MEMO_ENTRIES,
    SCHEMA_CHECK_MEMO_CHARS,
    SCHEMA_CHECK_MEMO_TOTAL,
    digest_key,
)
def schema_error(schema_text: str) -> str:
    """Whether embedded JSON Schema text is a valid schema of the dialect it declares.

    The dialect is the schema's ``$schema`` (draft-07, 2019-09, 2020-12...; 2020-12 when
    absent or unknown), so a draft-07 ``items: [...]`` is not rejected for one keyword.
    Memoised by canonical text (a text of more than ``memo.DIGEST_KEY_OVER`` characters
    by its sha2-256, so the memo never holds a long schema): manifests reuse the same few
    schemas.

    A schema that hides invisible characters where cleaning cannot remove them (a key, a
    ``pattern``, a ``required`` name: :func:`.untrusted_text.contract_hidden_in`) is
    refused too: every surface would serve that text to a model as written (adv29yt).

    :param schema_text: canonical JSON text of the schema.
    :return: "" when valid, else the first error message.
    """
    if nesting_depth(schema_text, SCHEMA_CHECK_MAX_DEPTH) > SCHEMA_CHECK_MAX_DEPTH:
        return f"schema nested more than {SCHEMA_CHECK_MAX_DEPTH} levels deep"
    hidden = contract_hidden_in(schema_text)
    if hidden:
        return (
            f"at {_shown(hidden[0])}: it holds invisible characters, which a person "
            "cannot see and cleaning would change what a call sends"
        )
    schema = json.loads(schema_text)
    if isinstance(schema, dict) and not isinstance(schema.get("$schema", ""), str):
        return "at /$schema: it should be the URI of a JSON Schema dialect"
    try:
        validator = jsonschema.validators.validator_for(
            schema, default=Draft202012Validator
        )
    except (
        ValueError
    ):  # a $schema that is no URI (urlsplit refuses it): unknown dialect
        validator = Draft202012Validator
    try:
        validator.check_schema(schema)
    except jsonschema.exceptions.SchemaError as exc:
        path, reason, _ = describe_error(exc)
        return f"at {_shown(path)}: {reason}" if path else reason
    except RecursionError:  # only past ~300 caller frames at the limit of 1,000 (CLI)
        return f"schema nested more than {SCHEMA_CHECK_MAX_DEPTH} levels deep"
    return ""


def quality_problems(manifest: "Manifest") -> Tuple[P.Problem, ...]:
    """Warn about what a valid manifest leaves callers to guess.

    :param manifest: a parsed manifest (:func:`.parsing.parse_document`).
    :return: warnings, in document order: ``empty_manifest_name`` (``/name``),
        ``empty_manifest_description`` (``/description``), one ``unknown_io_field``
        per field of a tool's ``input``/``output`` that is not ``type``,
        ``description`` or ``schema``, and one ``any_typed_argument`` per argument
        typed ``any`` (path: its tool's metadata); then the warnings the catalogue adds
        about the mech's own name, description and extras
        (:func:`.mech_text.mech_text_problems`: ``invisible_text``,
        ``instruction_like_text``) and its tools
        (:func:`.untrusted_text.tools_text_problems`: ``invisible_text``,
        ``instruction_like_text``, ``secret_argument``, ``secret_request``), so a
        command reports what the
        catalogue and the MCP server will find.
    """
    found = []
    if not manifest.name.strip():
        found.append(
            P.warning(
                P.EMPTY_MANIFEST_NAME,
                "The manifest has no `name`: agents list the mech without one; set it "
                "(an overrides file's `name`, for `generate`).",
                P.pointer("name"),
            )
        )
    if not manifest.description.strip():
        found.append(
            P.warning(
                P.EMPTY_MANIFEST_DESCRIPTION,
                "The manifest has no `description`: say what the mech does "
                "(an overrides file's `description`, for `generate`).",
                P.pointer("description"),
            )
        )
    for tool in manifest.tools:
        found.extend(_unknown_io_fields(tool.name, tool.extra_json))
        for argument in tool.arguments:
            if argument.type == "any":
                found.append(
                    P.warning(
                        P.ANY_TYPED_ARGUMENT,
                        f"Argument {argument.identifier!r} of tool {tool.name!r} is typed "
                        "`any`: callers cannot tell what to send; give it a type "
                        "(overrides: `tools.TOOL.arguments.IDENTIFIER.type`).",
                        P.pointer("toolMetadata", tool.name),
                    )
                )
    return (
        tuple(found)
        + mech_text_problems(manifest.name, manifest.description, manifest.extra_json)
        + tools_text_problems(manifest.tools)
    )


#: the fields of a tool's ``input`` and ``output`` (docs/manifest-spec.md section 4)
IO_FIELDS = ("type", "description", "schema")


def _unknown_io_fields(tool: str, extra_json: str) -> List[P.Problem]:
    """Warn about fields of a tool's ``input``/``output`` the specification does not define.

    The parser keeps them under the tool's extra, at ``input``/``output``. A YAML flow
    mapping ``{type: object, description: The answer, as JSON}`` gives one such field
    (``"as JSON": null``) and cuts the description.

    :param tool: the tool's name.
    :param extra_json: its canonical extra JSON.
    :return: one UNKNOWN_IO_FIELD warning per field, at its pointer.
    """
    extra = json.loads(extra_json)
    found = []
    for block in ("input", "output"):
        fields = extra.get(block) if isinstance(extra, dict) else None
        for key, value in (fields or {}).items() if isinstance(fields, dict) else ():
            hint = (
                " It has no value: was a text cut at a comma by YAML? Quote the text."
                if value is None
                else ""
            )
            found.append(
                P.warning(
                    P.UNKNOWN_IO_FIELD,
                    f"Tool {tool[:60]!r} has `{block}.{str(key)[:60]}`, which is not a "
                    f"field of `{block}` (only {', '.join(IO_FIELDS)}); readers ignore "
                    f"it.{hint}",
                    P.pointer("toolMetadata", tool, block, key),
                )
            )
    return found
