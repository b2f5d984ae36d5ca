"""Problems found in manifests, and the one place their machine-readable codes live.

Every rejection or warning the domain code produces is a :class:`Problem` with a stable
``code`` (one of the constants below), a human sentence naming the field and what to do,
and a ``path`` (an RFC 6901 JSON Pointer into the manifest, ``""`` for the whole document).
Codes are part of the public interface: never rename one, only add.
"""

import re
from dataclasses import dataclass
from typing import Any, Dict

SEVERITY_ERROR = "error"
SEVERITY_WARNING = "warning"

# --- document level (the whole manifest is rejected) -------------------------------
EMPTY_DOCUMENT = "empty_document"
TOO_LARGE = "too_large"
NOT_UTF8 = "not_utf8"
BYTE_ORDER_MARK = "byte_order_mark"
TOO_DEEP = "too_deep"
INVALID_JSON = "invalid_json"
DUPLICATE_KEY = "duplicate_key"
NON_FINITE_NUMBER = "non_finite_number"
NUMBER_OUT_OF_RANGE = "number_out_of_range"
INVALID_STRING = "invalid_string"
NOT_AN_OBJECT = "not_an_object"
SCHEMA_VIOLATION = "schema_violation"
TOO_MANY_TOOLS = "too_many_tools"
NO_TOOLS = "no_tools"

# --- field level (the field or the one tool is dropped, the rest survives) ---------
WRONG_TYPE = "wrong_type"
INVALID_TOOL_NAME = "invalid_tool_name"
DUPLICATE_TOOL = "duplicate_tool"
INVALID_TOOL = "invalid_tool"
INVALID_ARGUMENT = "invalid_argument"
DUPLICATE_ARGUMENT = "duplicate_argument"
UNKNOWN_ARGUMENT_TYPE = "unknown_argument_type"
INVALID_ARGUMENT_SCHEMA = "invalid_argument_schema"
INVALID_OUTPUT_SCHEMA = "invalid_output_schema"
TEXT_TOO_LONG = "text_too_long"

# --- warnings (nothing is dropped) --------------------------------------------------
TOOL_WITHOUT_METADATA = "tool_without_metadata"
METADATA_WITHOUT_TOOL = "metadata_without_tool"
TOOL_NAME_MISMATCH = "tool_name_mismatch"
UNTYPED_INPUT = "untyped_input"
DESCRIPTION_JSON_PARSED = "description_json_parsed"

# --- content addressing and fetching (used by cid.py and the skill) ----------------
INVALID_CID = "invalid_cid"
INVALID_DIGEST = "invalid_digest"
UNSUPPORTED_CID = "unsupported_cid"
DIGEST_MISMATCH = "digest_mismatch"

#: One line per code, for docs/manifest-spec.md and ``validate --explain``.
CODE_DESCRIPTIONS: Dict[str, str] = {
    EMPTY_DOCUMENT: "the manifest has no bytes (or only whitespace)",
    TOO_LARGE: "the manifest is larger than the byte cap",
    NOT_UTF8: "the manifest is not valid UTF-8",
    BYTE_ORDER_MARK: "the manifest starts with a UTF-8 byte order mark (RFC 8259 s8.1 forbids it)",
    TOO_DEEP: "arrays/objects are nested deeper than the depth cap",
    INVALID_JSON: "the manifest is not syntactically valid JSON",
    DUPLICATE_KEY: "an object has the same key twice",
    NON_FINITE_NUMBER: "NaN, Infinity or a number that overflows a double",
    NUMBER_OUT_OF_RANGE: "an integer beyond +-(2**53-1) with more digits than a double holds (I-JSON, RFC 7493 s2.2)",
    INVALID_STRING: "a string contains a lone surrogate (not Unicode text)",
    NOT_AN_OBJECT: "the top level is not a JSON object",
    SCHEMA_VIOLATION: "the manifest violates manifest-v1.schema.json",
    TOO_MANY_TOOLS: "more tools than the tool cap",
    NO_TOOLS: "neither `tools` nor `toolMetadata` yields a single valid tool",
    WRONG_TYPE: "a field has the wrong JSON type; the field is ignored",
    INVALID_TOOL_NAME: "a tool name is empty, too long, or has control characters; the tool is dropped",
    DUPLICATE_TOOL: "a tool name is listed twice; the later entry is dropped",
    INVALID_TOOL: "a tool's metadata is unusable; the tool is dropped",
    INVALID_ARGUMENT: "an argument is malformed; the argument is dropped",
    DUPLICATE_ARGUMENT: "two arguments share an identifier; the later one is dropped",
    UNKNOWN_ARGUMENT_TYPE: "an argument's type is not in the vocabulary; it is treated as `any`",
    INVALID_ARGUMENT_SCHEMA: "an argument's JSON Schema is not a valid schema; it is replaced by the type's",
    INVALID_OUTPUT_SCHEMA: "a tool's output schema is not a valid JSON Schema; it is dropped",
    TEXT_TOO_LONG: "a description or other text field exceeds its length cap; it is truncated",
    TOOL_WITHOUT_METADATA: "a name in `tools` has no `toolMetadata` entry",
    METADATA_WITHOUT_TOOL: "a `toolMetadata` key is not listed in `tools` (it is still used)",
    TOOL_NAME_MISMATCH: "`toolMetadata[k].name` differs from its key `k`; the key wins",
    UNTYPED_INPUT: "a tool declares no typed arguments (only free text); callers must guess",
    DESCRIPTION_JSON_PARSED: "a description held JSON; its fields were used",
    INVALID_CID: "the string is not a CID this code understands",
    INVALID_DIGEST: "the on-chain hash is not 32 bytes of hex",
    UNSUPPORTED_CID: "the CID uses a codec or hash other than dag-pb/raw and sha2-256",
    DIGEST_MISMATCH: "fetched bytes do not hash to the on-chain digest",
}


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a manifest.

    :param code: a stable machine-readable code, one of this module's constants.
    :param message: one human sentence naming the field and what to do.
    :param path: RFC 6901 JSON Pointer into the manifest ("" = whole document).
    :param severity: ``"error"`` (something was rejected or dropped) or ``"warning"``.
    """

    code: str
    message: str
    path: str = ""
    severity: str = SEVERITY_ERROR

    @property
    def is_error(self) -> bool:
        """Return true when something was rejected or dropped.

        :return: True when something was rejected or dropped.
        """
        return self.severity == SEVERITY_ERROR

    def to_dict(self) -> Dict[str, Any]:
        """Return a JSON-serialisable dict with keys code, message, path, severity.

        :return: a JSON-serialisable dict with keys code, message, path, severity.
        """
        return {
            "code": self.code,
            "message": self.message,
            "path": self.path,
            "severity": self.severity,
        }

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Problem":
        """Return the problem.

        :param data: a dict from :meth:`to_dict`.
        :return: the problem.
        """
        return cls(
            code=str(data["code"]),
            message=str(data["message"]),
            path=str(data.get("path", "")),
            severity=str(data.get("severity", SEVERITY_ERROR)),
        )


def error(code: str, message: str, path: str = "") -> Problem:
    """Return an error.

    :param code: a code constant.
    :param message: the sentence.
    :param path: JSON Pointer.
    :return: an error.
    """
    return Problem(code, message, path, SEVERITY_ERROR)


def warning(code: str, message: str, path: str = "") -> Problem:
    """Return a warning.

    :param code: a code constant.
    :param message: the sentence.
    :param path: JSON Pointer.
    :return: a warning.
    """
    return Problem(code, message, path, SEVERITY_WARNING)


MAX_POINTER_PART = 100
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _escape_control(match: "re.Match[str]") -> str:
    return f"\\u{ord(match.group()):04x}"


def pointer(*parts: Any) -> str:
    r"""Build an RFC 6901 JSON Pointer.

    A hostile key longer than :data:`MAX_POINTER_PART` characters is cut and marked with
    ``...`` so that problems stay small, and control characters are written as ``\uXXXX``
    so that printing a problem cannot drive a terminal (the pointer then locates, but no
    longer resolves).

    :param parts: object keys or array indexes, outermost first.
    :return: e.g. ``/toolMetadata/a~1b/input`` for ``("toolMetadata", "a/b", "input")``.
    """
    out = []
    for part in parts:
        text = str(part)
        if len(text) > MAX_POINTER_PART:
            text = text[:MAX_POINTER_PART] + "..."
        text = _CONTROL.sub(_escape_control, text)
        out.append("/" + text.replace("~", "~0").replace("/", "~1"))
    return "".join(out)
