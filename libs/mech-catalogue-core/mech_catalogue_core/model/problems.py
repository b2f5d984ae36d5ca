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

"""Problems found in manifests, and the one place their machine-readable codes live.

Every rejection or warning the domain code produces is a :class:`Problem` with a stable
``code`` (a :class:`ProblemCode` member), a human sentence naming the field and what to do,
and a ``path`` (an RFC 6901 JSON Pointer into the manifest, ``""`` for the whole document).
Codes are part of the public interface: never rename one, only add.

:class:`ProblemCode` defines every code any domain module or behaviour emits (manifests,
CIDs, fetching, registry reads, derive, generate, publish) once; the module-level names
are the same members, and emitting modules import them rather than writing the string
again. :data:`CODE_DESCRIPTIONS` gives each its sentence; docs/manifest-spec.md section 9
lists the same table (a test keeps them equal).
"""

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Dict, Iterable, List, Optional, Tuple

from mech_catalogue_core.model.hidden_characters import shown_as_written

SEVERITY_ERROR = "error"
SEVERITY_WARNING = "warning"


class ProblemCode(StrEnum):
    """Every machine-readable problem code, defined once.

    A ``StrEnum``: each member is a ``str`` that compares, hashes, formats and serialises
    as its value, so JSON, canonical forms and digests are those of the plain string.
    """

    # --- document level (the whole manifest is rejected) ------------------------------
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

    # --- field level (the field or the one tool is dropped, the rest survives) --------
    WRONG_TYPE = "wrong_type"
    INVALID_TOOL_NAME = "invalid_tool_name"
    DUPLICATE_TOOL = "duplicate_tool"
    INVALID_TOOL = "invalid_tool"
    INVALID_ARGUMENT = "invalid_argument"
    DUPLICATE_ARGUMENT = "duplicate_argument"
    UNKNOWN_ARGUMENT_TYPE = "unknown_argument_type"
    INVALID_ARGUMENT_SCHEMA = "invalid_argument_schema"
    INVALID_OUTPUT_SCHEMA = "invalid_output_schema"
    SCHEMA_BUDGET_EXCEEDED = "schema_budget_exceeded"  # schema_refs.InlineBudget
    TEXT_TOO_LONG = "text_too_long"

    # --- warnings (nothing is dropped) ------------------------------------------------
    TOOL_WITHOUT_METADATA = "tool_without_metadata"
    METADATA_WITHOUT_TOOL = "metadata_without_tool"
    TOOL_NAME_MISMATCH = "tool_name_mismatch"
    UNTYPED_INPUT = "untyped_input"
    DESCRIPTION_JSON_PARSED = "description_json_parsed"
    DESCRIPTION_TOOL_NOT_LISTED = "description_tool_not_listed"
    DESCRIPTION_JSON_NOT_TOOLS = "description_json_not_tools"
    TOO_MANY_DESCRIBED_TOOLS = "too_many_described_tools"
    TOOL_WITHHELD = "tool_withheld"
    UNKNOWN_TOOL_KIND = "unknown_tool_kind"
    TOP_LEVEL_RULE = "top_level_rule"
    EMPTY_MANIFEST_NAME = "empty_manifest_name"  # validation.quality_problems
    EMPTY_MANIFEST_DESCRIPTION = "empty_manifest_description"
    ANY_TYPED_ARGUMENT = "any_typed_argument"
    UNKNOWN_IO_FIELD = "unknown_io_field"  # validation.quality_problems
    PROBLEMS_TRUNCATED = "problems_truncated"  # CappedProblems, cap_problems
    INVISIBLE_TEXT = "invisible_text"  # untrusted_text.tool_text_problems
    INSTRUCTION_LIKE_TEXT = "instruction_like_text"  # untrusted_text
    SECRET_ARGUMENT = "secret_argument"  # untrusted_text; the MCP server refuses
    SECRET_REQUEST = "secret_request"  # untrusted_text; the MCP server refuses
    RESERVED_TOOL_NAME = (
        "reserved_tool_name"  # exporters/names.py; the MCP server refuses
    )

    # --- content addressing and fetching (used by cid.py and the skill) ---------------
    INVALID_CID = "invalid_cid"
    INVALID_DIGEST = "invalid_digest"
    UNSUPPORTED_CID = "unsupported_cid"
    DIGEST_MISMATCH = "digest_mismatch"
    FETCH_FAILED = "fetch_failed"  # fetching.py
    MANIFEST_REJECTED = "manifest_rejected"  # fetching.py
    PARSER_FAILED = "parser_failed"  # fetching.py
    LOOKALIKE_TOOL_NAME = "lookalike_tool_name"  # catalogue/lookalikes.py
    KEPT_LAST_GOOD = "kept_last_good"  # fetching.py

    # --- registry reads (registry.py: DigestRead.error; fetching.py) ------------------
    REGISTRY_READ_FAILED = "registry_read_failed"
    REGISTRY_CALL_FAILED = "registry_call_failed"
    REGISTRY_RETURN_UNDECODABLE = "registry_return_undecodable"

    # --- deriving arguments from tool packages (derive.py) ----------------------------
    PACKAGE_NOT_FOUND = "package_not_found"
    INVALID_COMPONENT_YAML = "invalid_component_yaml"
    NOT_A_CUSTOM_COMPONENT = "not_a_custom_component"
    ENTRY_POINT_NOT_FOUND = "entry_point_not_found"
    SOURCE_TOO_LARGE = "source_too_large"
    SOURCE_SYNTAX_ERROR = "source_syntax_error"
    CALLABLE_NOT_FOUND = "callable_not_found"
    NO_TOOL_LIST = "no_tool_list"
    UNRESOLVED_TOOL_LIST = "unresolved_tool_list"
    DYNAMIC_KWARGS_ACCESS = "dynamic_kwargs_access"
    EVALUATION_BUDGET_EXCEEDED = "evaluation_budget_exceeded"
    SOURCE_TOO_DEEP = "source_too_deep"
    # --- deriving from a component's code on IPFS (derive/code_uri.py) -----------------
    CODE_URI_MISSING = "code_uri_missing"
    CODE_NOT_A_DIRECTORY = "code_not_a_directory"
    CODE_OVER_CAPS = "code_over_caps"
    CODE_FETCH_FAILED = "code_fetch_failed"
    DERIVER_FAILED = "deriver_failed"
    DERIVED_ARGUMENTS_DISAGREE = "derived_arguments_disagree"

    # --- generating the service's own manifest (generate.py) --------------------------
    INVALID_OVERRIDES = "invalid_overrides"
    UNKNOWN_OVERRIDE_TOOL = "unknown_override_tool"
    UNKNOWN_OVERRIDE_ARGUMENT = "unknown_override_argument"
    DUPLICATE_TOOL_ACROSS_PACKAGES = "duplicate_tool_across_packages"
    GENERATED_MANIFEST_INVALID = "generated_manifest_invalid"

    # --- publishing it (publish.py, the publish behaviours, scripts/publish) ----------
    PUBLISH_INVALID_MANIFEST = "publish_invalid_manifest"
    PUBLISH_IPFS_UNAVAILABLE = "publish_ipfs_unavailable"
    PUBLISH_UPLOAD_MISMATCH = "publish_upload_mismatch"
    PUBLISH_READBACK_MISMATCH = "publish_readback_mismatch"
    PUBLISH_RPC_UNAVAILABLE = "publish_rpc_unavailable"
    PUBLISH_MECH_NOT_FOUND = "publish_mech_not_found"
    PUBLISH_NOT_AUTHORISED = "publish_not_authorised"
    PUBLISH_TRANSACTION_FAILED = "publish_transaction_failed"
    PUBLISH_NOT_CONFIRMED = "publish_not_confirmed"
    PUBLISH_INVALID_TARGET = "publish_invalid_target"
    PUBLISH_FEE_OVER_CAP = "publish_fee_over_cap"

    # --- paid MCP calls (mech_catalogue_cli/mcp_server: a result's _meta warnings) -----
    RESPONSE_NOT_UTF8 = "response_not_utf8"
    RESPONSE_NOT_STRUCTURED = "response_not_structured"
    DELIVERED_BY_ANOTHER_MECH = "delivered_by_another_mech"
    UNTRUSTED_DELIVERY = "untrusted_delivery"
    RESPONSE_CUT = "response_cut"


# Module-level names of the same members (what the emitting modules import).
EMPTY_DOCUMENT = ProblemCode.EMPTY_DOCUMENT
TOO_LARGE = ProblemCode.TOO_LARGE
NOT_UTF8 = ProblemCode.NOT_UTF8
BYTE_ORDER_MARK = ProblemCode.BYTE_ORDER_MARK
TOO_DEEP = ProblemCode.TOO_DEEP
INVALID_JSON = ProblemCode.INVALID_JSON
DUPLICATE_KEY = ProblemCode.DUPLICATE_KEY
NON_FINITE_NUMBER = ProblemCode.NON_FINITE_NUMBER
NUMBER_OUT_OF_RANGE = ProblemCode.NUMBER_OUT_OF_RANGE
INVALID_STRING = ProblemCode.INVALID_STRING
NOT_AN_OBJECT = ProblemCode.NOT_AN_OBJECT
SCHEMA_VIOLATION = ProblemCode.SCHEMA_VIOLATION
TOO_MANY_TOOLS = ProblemCode.TOO_MANY_TOOLS
NO_TOOLS = ProblemCode.NO_TOOLS
WRONG_TYPE = ProblemCode.WRONG_TYPE
INVALID_TOOL_NAME = ProblemCode.INVALID_TOOL_NAME
DUPLICATE_TOOL = ProblemCode.DUPLICATE_TOOL
INVALID_TOOL = ProblemCode.INVALID_TOOL
INVALID_ARGUMENT = ProblemCode.INVALID_ARGUMENT
DUPLICATE_ARGUMENT = ProblemCode.DUPLICATE_ARGUMENT
UNKNOWN_ARGUMENT_TYPE = ProblemCode.UNKNOWN_ARGUMENT_TYPE
INVALID_ARGUMENT_SCHEMA = ProblemCode.INVALID_ARGUMENT_SCHEMA
INVALID_OUTPUT_SCHEMA = ProblemCode.INVALID_OUTPUT_SCHEMA
SCHEMA_BUDGET_EXCEEDED = ProblemCode.SCHEMA_BUDGET_EXCEEDED
TEXT_TOO_LONG = ProblemCode.TEXT_TOO_LONG
TOOL_WITHOUT_METADATA = ProblemCode.TOOL_WITHOUT_METADATA
METADATA_WITHOUT_TOOL = ProblemCode.METADATA_WITHOUT_TOOL
TOOL_NAME_MISMATCH = ProblemCode.TOOL_NAME_MISMATCH
UNTYPED_INPUT = ProblemCode.UNTYPED_INPUT
DESCRIPTION_JSON_PARSED = ProblemCode.DESCRIPTION_JSON_PARSED
DESCRIPTION_TOOL_NOT_LISTED = ProblemCode.DESCRIPTION_TOOL_NOT_LISTED
DESCRIPTION_JSON_NOT_TOOLS = ProblemCode.DESCRIPTION_JSON_NOT_TOOLS
TOO_MANY_DESCRIBED_TOOLS = ProblemCode.TOO_MANY_DESCRIBED_TOOLS
TOOL_WITHHELD = ProblemCode.TOOL_WITHHELD
UNKNOWN_TOOL_KIND = ProblemCode.UNKNOWN_TOOL_KIND
TOP_LEVEL_RULE = ProblemCode.TOP_LEVEL_RULE
EMPTY_MANIFEST_NAME = ProblemCode.EMPTY_MANIFEST_NAME
EMPTY_MANIFEST_DESCRIPTION = ProblemCode.EMPTY_MANIFEST_DESCRIPTION
ANY_TYPED_ARGUMENT = ProblemCode.ANY_TYPED_ARGUMENT
UNKNOWN_IO_FIELD = ProblemCode.UNKNOWN_IO_FIELD
PROBLEMS_TRUNCATED = ProblemCode.PROBLEMS_TRUNCATED
INVISIBLE_TEXT = ProblemCode.INVISIBLE_TEXT
INSTRUCTION_LIKE_TEXT = ProblemCode.INSTRUCTION_LIKE_TEXT
SECRET_ARGUMENT = ProblemCode.SECRET_ARGUMENT
SECRET_REQUEST = ProblemCode.SECRET_REQUEST
RESERVED_TOOL_NAME = ProblemCode.RESERVED_TOOL_NAME
INVALID_CID = ProblemCode.INVALID_CID
INVALID_DIGEST = ProblemCode.INVALID_DIGEST
UNSUPPORTED_CID = ProblemCode.UNSUPPORTED_CID
DIGEST_MISMATCH = ProblemCode.DIGEST_MISMATCH
FETCH_FAILED = ProblemCode.FETCH_FAILED
MANIFEST_REJECTED = ProblemCode.MANIFEST_REJECTED
PARSER_FAILED = ProblemCode.PARSER_FAILED
LOOKALIKE_TOOL_NAME = ProblemCode.LOOKALIKE_TOOL_NAME
KEPT_LAST_GOOD = ProblemCode.KEPT_LAST_GOOD
REGISTRY_READ_FAILED = ProblemCode.REGISTRY_READ_FAILED
REGISTRY_CALL_FAILED = ProblemCode.REGISTRY_CALL_FAILED
REGISTRY_RETURN_UNDECODABLE = ProblemCode.REGISTRY_RETURN_UNDECODABLE
PACKAGE_NOT_FOUND = ProblemCode.PACKAGE_NOT_FOUND
INVALID_COMPONENT_YAML = ProblemCode.INVALID_COMPONENT_YAML
NOT_A_CUSTOM_COMPONENT = ProblemCode.NOT_A_CUSTOM_COMPONENT
ENTRY_POINT_NOT_FOUND = ProblemCode.ENTRY_POINT_NOT_FOUND
SOURCE_TOO_LARGE = ProblemCode.SOURCE_TOO_LARGE
SOURCE_SYNTAX_ERROR = ProblemCode.SOURCE_SYNTAX_ERROR
CALLABLE_NOT_FOUND = ProblemCode.CALLABLE_NOT_FOUND
NO_TOOL_LIST = ProblemCode.NO_TOOL_LIST
UNRESOLVED_TOOL_LIST = ProblemCode.UNRESOLVED_TOOL_LIST
DYNAMIC_KWARGS_ACCESS = ProblemCode.DYNAMIC_KWARGS_ACCESS
EVALUATION_BUDGET_EXCEEDED = ProblemCode.EVALUATION_BUDGET_EXCEEDED
SOURCE_TOO_DEEP = ProblemCode.SOURCE_TOO_DEEP
CODE_URI_MISSING = ProblemCode.CODE_URI_MISSING
CODE_NOT_A_DIRECTORY = ProblemCode.CODE_NOT_A_DIRECTORY
CODE_OVER_CAPS = ProblemCode.CODE_OVER_CAPS
CODE_FETCH_FAILED = ProblemCode.CODE_FETCH_FAILED
DERIVER_FAILED = ProblemCode.DERIVER_FAILED
DERIVED_ARGUMENTS_DISAGREE = ProblemCode.DERIVED_ARGUMENTS_DISAGREE
INVALID_OVERRIDES = ProblemCode.INVALID_OVERRIDES
UNKNOWN_OVERRIDE_TOOL = ProblemCode.UNKNOWN_OVERRIDE_TOOL
UNKNOWN_OVERRIDE_ARGUMENT = ProblemCode.UNKNOWN_OVERRIDE_ARGUMENT
DUPLICATE_TOOL_ACROSS_PACKAGES = ProblemCode.DUPLICATE_TOOL_ACROSS_PACKAGES
GENERATED_MANIFEST_INVALID = ProblemCode.GENERATED_MANIFEST_INVALID
PUBLISH_INVALID_MANIFEST = ProblemCode.PUBLISH_INVALID_MANIFEST
PUBLISH_IPFS_UNAVAILABLE = ProblemCode.PUBLISH_IPFS_UNAVAILABLE
PUBLISH_UPLOAD_MISMATCH = ProblemCode.PUBLISH_UPLOAD_MISMATCH
PUBLISH_READBACK_MISMATCH = ProblemCode.PUBLISH_READBACK_MISMATCH
PUBLISH_RPC_UNAVAILABLE = ProblemCode.PUBLISH_RPC_UNAVAILABLE
PUBLISH_MECH_NOT_FOUND = ProblemCode.PUBLISH_MECH_NOT_FOUND
PUBLISH_NOT_AUTHORISED = ProblemCode.PUBLISH_NOT_AUTHORISED
PUBLISH_TRANSACTION_FAILED = ProblemCode.PUBLISH_TRANSACTION_FAILED
PUBLISH_NOT_CONFIRMED = ProblemCode.PUBLISH_NOT_CONFIRMED
PUBLISH_INVALID_TARGET = ProblemCode.PUBLISH_INVALID_TARGET
PUBLISH_FEE_OVER_CAP = ProblemCode.PUBLISH_FEE_OVER_CAP
RESPONSE_NOT_UTF8 = ProblemCode.RESPONSE_NOT_UTF8
RESPONSE_NOT_STRUCTURED = ProblemCode.RESPONSE_NOT_STRUCTURED
DELIVERED_BY_ANOTHER_MECH = ProblemCode.DELIVERED_BY_ANOTHER_MECH
UNTRUSTED_DELIVERY = ProblemCode.UNTRUSTED_DELIVERY
RESPONSE_CUT = ProblemCode.RESPONSE_CUT

#: Error codes that drop only a part of a tool, not the tool: a field of the wrong JSON
#: type (it is ignored: a description, ``input``/``output`` or their texts, ``examples``,
#: the ``arguments``/``kwargs`` container, an argument's ``required`` taken as true), tool
#: metadata that is not an object (the tool is offered by name only), an argument (bad
#: identifier, past the argument cap), the whole ``input.schema`` (the tool is then
#: untyped, as if it declared none) or the output schema. The tool is offered without
#: that part and the problem, still an error the author must fix, is reported; any other
#: error withholds the tool (docs/manifest-spec.md s9, "What withholds a tool").
DROPPED_PART_CODES = frozenset(
    {
        WRONG_TYPE,
        INVALID_TOOL,
        INVALID_ARGUMENT,
        INVALID_ARGUMENT_SCHEMA,
        INVALID_OUTPUT_SCHEMA,
    }
)

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
    INVALID_TOOL_NAME: "a tool name is empty, too long, or has control or invisible characters, a line break, markup that hides text, or combining marks drawn past their letter or hidden by it (more than 4 on one character, one repeated, one on no visible character, a dot above on i or j); the tool is dropped",
    DUPLICATE_TOOL: "a tool name is listed twice; the later entry is dropped",
    INVALID_TOOL: "a tool's metadata is not an object; it is ignored and the tool is offered by name only",
    INVALID_ARGUMENT: "an argument is malformed; the argument is dropped",
    DUPLICATE_ARGUMENT: "two arguments share an identifier; which one the mech reads is unknown, so the tool is withheld",
    UNKNOWN_ARGUMENT_TYPE: "an argument's type is not in the vocabulary; it is treated as `any`",
    INVALID_ARGUMENT_SCHEMA: "an argument's JSON Schema is not a valid schema (it is replaced by the type's), or `input.schema` is not an object schema with `properties` (it is ignored; the tool is offered untyped)",
    INVALID_OUTPUT_SCHEMA: "a tool's output schema is not a valid JSON Schema, or a reference in it resolves nowhere or is a `$dynamicRef`/`$recursiveRef`; it is dropped (the tool is offered without structured output)",
    LOOKALIKE_TOOL_NAME: "a tool name looks like another tool's name of the catalogue, or holds invisible characters",
    SCHEMA_BUDGET_EXCEEDED: "a schema expands past its inline budget when its references are resolved; it is taken as any value",
    TEXT_TOO_LONG: "a description or other text field exceeds its length cap; it is truncated",
    TOOL_WITHOUT_METADATA: "a name in `tools` has no `toolMetadata` entry",
    METADATA_WITHOUT_TOOL: "a `toolMetadata` key is not listed in `tools` (it is still used)",
    TOOL_NAME_MISMATCH: "`toolMetadata[k].name` differs from its key `k`; the key wins",
    UNTYPED_INPUT: "a tool declares no typed arguments (only free text); callers must guess",
    DESCRIPTION_JSON_PARSED: "a description held JSON; its fields were used",
    DESCRIPTION_TOOL_NOT_LISTED: "the JSON in the top-level `description` describes a tool that `tools` does not list; it is not offered",
    DESCRIPTION_JSON_NOT_TOOLS: "the top-level `description` looks like tool metadata JSON but an item is not a tool object (or it does not decode); it is kept as text",
    TOO_MANY_DESCRIBED_TOOLS: "the JSON in the top-level `description` describes more tools than the tool cap; those past it are not read",
    TOOL_WITHHELD: "a tool has an error-level problem that leaves its call ambiguous (not one that only drops a part of it); it is not offered (only listed under its mech)",
    UNKNOWN_TOOL_KIND: "a tool's `kind` is not a known kind (kept) or not a lowercase word (ignored)",
    TOP_LEVEL_RULE: "`input.schema` has a root rule on several arguments (e.g. `anyOf` of `required` sets); exports state it in the tool's description",
    EMPTY_MANIFEST_NAME: "the manifest's `name` is missing or blank (validate and generate warn; readers accept it)",
    EMPTY_MANIFEST_DESCRIPTION: "the manifest's `description` is missing or blank (validate and generate warn; readers accept it)",
    ANY_TYPED_ARGUMENT: "an argument is typed `any`, so callers cannot tell what to send (validate and generate warn)",
    UNKNOWN_IO_FIELD: "a tool's `input` or `output` has a field other than `type`, `description` and `schema` (often text cut at a comma by YAML; validate and generate warn; readers keep it as extra)",
    PROBLEMS_TRUNCATED: "more problems than a cap lists (per manifest, or per tool's arguments); errors come first, and this one counts the rest by code (an error when it counts one)",
    INVISIBLE_TEXT: "a tool's text holds invisible or control characters (tag characters, bidi controls, zero-width characters, variation selectors, C0/C1 controls), or combining marks drawn over other text (more than 4 on one character, one repeated, one on no visible character); they are removed, the marks past those cut, wherever the text is shown to a model",
    INSTRUCTION_LIKE_TEXT: 'a tool\'s text reads like instructions to a model ("ignore previous instructions", "you must", "send funds", "private key"...); it is shown only as the mech\'s untrusted description',
    RESERVED_TOOL_NAME: "an MCP tool name is, or looks like, one of the MCP server's discovery tools (search_tools, describe_tool, call_tool); the catalogue renames such a mech tool, and the MCP server does not list a tool still served under one",
    SECRET_ARGUMENT: 'an argument\'s name or description asks for a secret (private key, seed phrase, mnemonic, password, API key, secret or wallet key), or they do read together (`seed` described "phrase: ..."); the MCP server does not offer the tool',
    SECRET_REQUEST: 'a tool\'s own text (its description, title, input or output text, an enum value, a default, an example, an unknown field) asks the reader for a secret of the user\'s or the reader\'s ("put the user\'s card PIN in the query argument", "reply with your wallet passphrase"); naming one as a subject ("Hashes the password with Argon2") does not; the MCP server does not offer the tool',
    INVALID_CID: "the string is not a CID this code understands",
    INVALID_DIGEST: "the on-chain hash is not 32 bytes of hex",
    UNSUPPORTED_CID: "the CID uses a codec or hash other than dag-pb/raw and sha2-256",
    DIGEST_MISMATCH: "fetched bytes do not hash to the on-chain digest",
    FETCH_FAILED: "no IPFS source returned the manifest's bytes (after retries)",
    MANIFEST_REJECTED: "the fetched manifest was rejected by the parser; the mech is quarantined",
    PARSER_FAILED: "the parser raised on a manifest (a bug); the mech is quarantined",
    KEPT_LAST_GOOD: "the current manifest failed, so the mech's last good manifest is served",
    REGISTRY_READ_FAILED: "reading a mech's hash from its registry failed",
    REGISTRY_CALL_FAILED: "the registry call reverted or failed inside Multicall2",
    REGISTRY_RETURN_UNDECODABLE: "the registry returned data that does not decode (wrong contract?)",
    PACKAGE_NOT_FOUND: "the path is not a folder with a component.yaml",
    INVALID_COMPONENT_YAML: "component.yaml is not a YAML mapping with string entry_point and callable",
    NOT_A_CUSTOM_COMPONENT: "component.yaml `type` is not `custom` (derivation continues)",
    ENTRY_POINT_NOT_FOUND: "the entry_point file is missing or outside the package folder",
    SOURCE_TOO_LARGE: "the entry-point module is larger than the byte cap",
    SOURCE_SYNTAX_ERROR: "the entry-point module is not valid Python 3 syntax",
    CALLABLE_NOT_FOUND: "no top-level function with the component's `callable` name",
    NO_TOOL_LIST: "no ALLOWED_TOOLS / AVAILABLE_TOOLS: the component name is used as the tool name",
    UNRESOLVED_TOOL_LIST: "ALLOWED_TOOLS / AVAILABLE_TOOLS is not a literal list of strings",
    DYNAMIC_KWARGS_ACCESS: "kwargs is read with a non-literal key; some arguments may be missing",
    EVALUATION_BUDGET_EXCEEDED: "evaluating the module's constants exceeded the work or value-size budget; those values are unknown",
    SOURCE_TOO_DEEP: "the entry-point module nests code deeper than the analyser follows",
    CODE_URI_MISSING: "a component's metadata has no `code_uri` of the form ipfs://<CID>; nothing is derived from it",
    CODE_NOT_A_DIRECTORY: "a component's code_uri is not a tool package directory (no component.yaml within the depth cap)",
    CODE_OVER_CAPS: "a component's code is over a cap (file bytes, files, directory depth, packages per mech)",
    CODE_FETCH_FAILED: "a block of a component's code could not be fetched or does not hash to its CID",
    DERIVER_FAILED: "the code deriver raised on a package (a bug); nothing is derived from it",
    DERIVED_ARGUMENTS_DISAGREE: "the declared arguments of a tool differ from those derived from its code; the declared ones are kept",
    INVALID_OVERRIDES: "an override for the generated manifest names an unknown field or has the wrong type",
    UNKNOWN_OVERRIDE_TOOL: "the overrides name a tool no tool package serves (a typo?); nothing is generated",
    UNKNOWN_OVERRIDE_ARGUMENT: "the overrides name an argument the tool's code does not read, without `new: true`; nothing is generated",
    DUPLICATE_TOOL_ACROSS_PACKAGES: "two tool packages serve the same tool name",
    GENERATED_MANIFEST_INVALID: "the generated manifest does not pass the schema or the parser",
    PUBLISH_INVALID_MANIFEST: "the manifest to publish has errors; nothing is published",
    PUBLISH_IPFS_UNAVAILABLE: "the IPFS node could not store or return the manifest",
    PUBLISH_UPLOAD_MISMATCH: "the IPFS node's CID is not the expected dag-pb CID of the bytes",
    PUBLISH_READBACK_MISMATCH: "the bytes read back by CID differ from the upload or its digest",
    PUBLISH_RPC_UNAVAILABLE: "the chain RPC could not be read or returned undecodable data",
    PUBLISH_MECH_NOT_FOUND: "the mech id does not exist in the target registry",
    PUBLISH_NOT_AUTHORISED: "the signer (key or Safe) may not update this mech's hash",
    PUBLISH_TRANSACTION_FAILED: "the hash update transaction was mined but reverted",
    PUBLISH_NOT_CONFIRMED: "the hash update transaction was sent but no receipt came",
    PUBLISH_INVALID_TARGET: "the publish target (registry kind, address or id) is malformed",
    PUBLISH_FEE_OVER_CAP: "the node's base fee plus the tip, or its suggested tip, is over --max-fee-per-gas; nothing is signed",
    RESPONSE_NOT_UTF8: "a paid call's delivered response is not UTF-8; shown with U+FFFD",
    RESPONSE_NOT_STRUCTURED: "a paid call's delivered response is returned as text only",
    DELIVERED_BY_ANOTHER_MECH: "a paid request was delivered by another mech of the tool",
    UNTRUSTED_DELIVERY: "a paid request was delivered by a mech not offering the tool",
    RESPONSE_CUT: "a paid call's delivered response is over 64 KiB; only its start is shown, the whole is at its CID",
}


@dataclass(frozen=True, slots=True)
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

    def __post_init__(self) -> None:
        """Show what the message and path quote of a manifest as written (adv29w).

        A pointer holds the manifest's keys and a message may quote them: tag
        characters, a bidi override or an HTML comment there would hide text on every
        surface that shows problems, so each is :func:`.hidden_characters.shown_as_written`
        here, once, whoever builds the problem.
        """
        object.__setattr__(self, "message", shown_as_written(self.message))
        object.__setattr__(self, "path", shown_as_written(self.path))

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


def withholds(problem: Problem) -> bool:
    """Return true when the problem keeps its tool from being offered.

    :param problem: a problem of one tool.
    :return: True for an error other than a :data:`DROPPED_PART_CODES` one.
    """
    return problem.is_error and problem.code not in DROPPED_PART_CODES


def unique_problems(problems: Iterable[Problem]) -> Tuple[Problem, ...]:
    """Deduplicate problems, keeping the first occurrence of each (a set in a canonical order).

    The order is the order they were found in, which is a function of the manifest bytes
    and the chain reads only, so every agent gets the same tuple.

    :param problems: problems, possibly repeated.
    :return: each distinct problem once, in first-seen order.
    """
    return tuple(dict.fromkeys(problems))


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


def cap_problems(
    problems: Iterable[Problem], cap: int, unlisted: Optional[Dict[str, int]] = None
) -> Tuple[Problem, ...]:
    """Keep at most ``cap`` problems: errors first, then warnings, each in document order.

    The problems kept stay in the order they were found; when any is left out, one
    PROBLEMS_TRUNCATED warning (path ``""``) is added last, counting those left out by
    code. Which problems are kept depends on the problems alone, so every agent keeps
    the same ones. Withholding a tool is decided before this (by the parser), so leaving
    out its problems never offers it.

    :param problems: problems, in the order found.
    :param cap: most problems kept (the summary comes on top: ``cap + 1`` at most).
    :param unlisted: code -> count of problems already left out before ``problems``
        (by :class:`CappedProblems`); they are counted in the summary.
    :return: the problems kept, then the summary when something was left out.
    """
    found = list(problems)
    room = max(cap, 0)
    errors = min(sum(1 for p in found if p.is_error), room)
    warnings_room = room - errors
    left_out: Dict[str, int] = dict(unlisted or {})
    kept = []
    for problem in found:
        if problem.is_error and errors > 0:
            errors -= 1
        elif not problem.is_error and warnings_room > 0:
            warnings_room -= 1
        else:
            left_out[problem.code] = left_out.get(problem.code, 0) + 1
            continue
        kept.append(problem)
    if left_out:
        kept.append(_truncation_summary(left_out, cap))
    return tuple(kept)


def _truncation_summary(left_out: Dict[str, int], cap: int) -> Problem:
    """One warning counting the problems left out.

    :param left_out: code -> count.
    :param cap: the cap that was applied.
    :return: the PROBLEMS_TRUNCATED warning.
    """
    total = sum(left_out.values())
    counts = ", ".join(
        f"{code} {count:,}"
        for code, count in sorted(left_out.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    return warning(
        PROBLEMS_TRUNCATED,
        f"{total:,} more problems were found than the cap of {cap} per manifest lists "
        f"({counts}); fix the problems listed (errors come first) and check the "
        "manifest again to see the rest.",
    )


class CappedProblems(List[Problem]):
    """A problem list that never holds more than ``2 * cap`` problems, however many come.

    It keeps the first ``cap`` errors and the first ``cap`` warnings appended (enough for
    :func:`cap_problems` to choose exactly what it would choose from them all) and only
    counts the others by code, so a hostile manifest cannot make the parser hold one
    problem per byte. ``append``, ``extend`` and ``+=`` are capped; do not ``insert``.

    :param cap: the problem cap (:attr:`.limits.Limits.max_problems`).
    """

    def __init__(self, cap: int) -> None:
        """Start empty.

        :param cap: the problem cap.
        """
        super().__init__()
        self.cap = max(cap, 0)
        self._held = {SEVERITY_ERROR: 0, SEVERITY_WARNING: 0}
        self._unlisted: Dict[str, int] = {}

    def append(self, problem: Problem) -> None:
        """Hold the problem, or count it when as many of its severity are held.

        :param problem: the problem.
        """
        severity = SEVERITY_ERROR if problem.is_error else SEVERITY_WARNING
        if self._held[severity] < self.cap:
            self._held[severity] += 1
            super().append(problem)
        else:
            self._unlisted[problem.code] = self._unlisted.get(problem.code, 0) + 1

    def extend(self, problems: Iterable[Problem]) -> None:
        """Append each problem.

        :param problems: the problems.
        """
        for problem in problems:
            self.append(problem)

    def __iadd__(self, problems: Iterable[Problem]) -> "CappedProblems":  # type: ignore[override,misc]
        """Append each problem.

        :param problems: the problems.
        :return: self.
        """
        self.extend(problems)
        return self

    def capped(self) -> Tuple[Problem, ...]:
        """Return the problems as :func:`cap_problems` keeps them from all appended.

        :return: at most ``cap`` problems, then the PROBLEMS_TRUNCATED summary if any
            was left out.
        """
        return cap_problems(self, self.cap, self._unlisted)


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
