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

"""Hostile and malformed manifests: (name, bytes, expected code, tools that must survive).

``survivors`` is None when the whole document must be rejected, else the exact tuple of
tool names the parse must keep. Generated here (not stored) so the corpus costs no
repository space; the large entries are built on demand.
"""

import json
from dataclasses import dataclass
from typing import Any, List, Optional, Tuple

from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.limits import (
    DEFAULT_LIMITS,
    Limits,
)


@dataclass(frozen=True)
class Case:
    """One hostile manifest."""

    name: str
    data: bytes
    code: str
    survivors: Optional[Tuple[str, ...]]
    limits: Limits = DEFAULT_LIMITS


GOOD_META = {
    "name": "good",
    "description": "works",
    "input": {"type": "text", "description": "q"},
}


def _j(value: Any) -> bytes:
    return json.dumps(value).encode()


def _with_good(extra_tools: List[Any], metadata: Any = None) -> bytes:
    meta = {"good": GOOD_META}
    if metadata:
        meta.update(metadata)
    return _j({"tools": ["good", *extra_tools], "toolMetadata": meta})


#: codes of the faults that only inform: the tool stays offered
_WARNING_CODES = frozenset(
    {
        P.TEXT_TOO_LONG,
        P.TOOL_NAME_MISMATCH,
        P.DESCRIPTION_JSON_PARSED,
        P.UNKNOWN_ARGUMENT_TYPE,
        P.UNTYPED_INPUT,
        P.TOP_LEVEL_RULE,
    }
)


def _meta_case(
    name: str, bad_meta: Any, code: str, withheld: Optional[bool] = None
) -> Case:
    """A case where tool `bad` has a fault: an error withholds it, a warning does not.

    An error that drops only a part of the tool (an argument, the input schema, the
    output schema: ``P.DROPPED_PART_CODES``) does not withhold it either.

    :param name: the case name.
    :param bad_meta: the metadata of `bad`.
    :param code: the expected problem code.
    :param withheld: whether `bad` is withheld; by default, unless ``code`` is a warning
        or a dropped-part error.
    :return: the case.
    """
    if withheld is None:
        withheld = code not in _WARNING_CODES and code not in P.DROPPED_PART_CODES
    survivors = ("good",) if withheld else ("good", "bad")
    return Case(name, _with_good(["bad"], {"bad": bad_meta}), code, survivors)


def build_corpus() -> List[Case]:
    """Return every case (more than 40).

    :return: every case (more than 40).
    """
    rejected = [
        Case("empty", b"", P.EMPTY_DOCUMENT, None),
        Case("whitespace only", b"  \r\n  ", P.EMPTY_DOCUMENT, None),
        Case("bom", b"\xef\xbb\xbf" + _j({"tools": ["a"]}), P.BYTE_ORDER_MARK, None),
        Case("utf-16", '{"tools": ["a"]}'.encode("utf-16"), P.NOT_UTF8, None),
        Case("latin-1 name", b'{"tools": ["caf\xe9"]}', P.NOT_UTF8, None),
        Case("overlong utf-8", b'{"tools": ["\xc0\xaf"]}', P.NOT_UTF8, None),
        Case("encoded surrogate", b'{"tools": ["\xed\xb0\x80"]}', P.NOT_UTF8, None),
        Case(
            "escaped lone surrogate", b'{"tools": ["\\ud800"]}', P.INVALID_STRING, None
        ),
        Case("top-level array", _j([{"tools": ["a"]}]), P.NOT_AN_OBJECT, None),
        Case("top-level string", _j("tools"), P.NOT_AN_OBJECT, None),
        Case("top-level null", b"null", P.NOT_AN_OBJECT, None),
        Case("top-level number", b"42", P.NOT_AN_OBJECT, None),
        Case("truncated", _j({"tools": ["a", "b"]})[:-3], P.INVALID_JSON, None),
        Case("trailing garbage", _j({"tools": ["a"]}) + b"}", P.INVALID_JSON, None),
        Case("single quotes", b"{'tools': ['a']}", P.INVALID_JSON, None),
        Case("trailing comma", b'{"tools": ["a",]}', P.INVALID_JSON, None),
        Case("comments", b'{"tools": ["a"] /* hi */}', P.INVALID_JSON, None),
        Case("nul byte", b'{"tools": ["a"]}\x00', P.INVALID_JSON, None),
        Case(
            "raw control char in string", b'{"tools": ["a\x01"]}', P.INVALID_JSON, None
        ),
        Case(
            "duplicate top-level key",
            b'{"tools": ["evil"], "tools": ["a"]}',
            P.DUPLICATE_KEY,
            None,
        ),
        Case(
            "duplicate tool metadata key",
            b'{"tools": ["a"], "toolMetadata": {"a": {}, "a": {}}}',
            P.DUPLICATE_KEY,
            None,
        ),
        Case("NaN", b'{"tools": ["a"], "price": NaN}', P.NON_FINITE_NUMBER, None),
        Case(
            "Infinity",
            b'{"tools": ["a"], "price": Infinity}',
            P.NON_FINITE_NUMBER,
            None,
        ),
        Case(
            "float overflow",
            b'{"tools": ["a"], "price": 1e309}',
            P.NON_FINITE_NUMBER,
            None,
        ),
        Case(
            "huge integer",
            b'{"tools": ["a"], "id": 123456789012345678901234567890}',
            P.NUMBER_OUT_OF_RANGE,
            None,
        ),
        Case(
            "deep arrays",
            b'{"tools": ["a"], "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
            P.TOO_DEEP,
            None,
        ),
        Case(
            "deep objects",
            b'{"tools": ["a"], "x": ' + b'{"a":' * 70 + b"1" + b"}" * 70 + b"}",
            P.TOO_DEEP,
            None,
        ),
        Case("unbalanced deep", b"[" * 200_000, P.TOO_DEEP, None),
        Case(
            "huge document",
            b'{"tools": ["a"], "pad": "' + b"x" * (2 * 1024 * 1024) + b'"}',
            P.TOO_LARGE,
            None,
        ),
        Case(
            "100,000 tools over the byte cap",
            _j({"tools": [f"tool-{i:06d}" for i in range(100_000)]}),
            P.TOO_LARGE,
            None,
        ),
        Case(
            "100,000 tools",
            _j({"tools": [f"t{i}" for i in range(100_000)]}),
            P.TOO_MANY_TOOLS,
            None,
            Limits(max_bytes=16 * 1024 * 1024),
        ),
        Case("no tools at all", _j({"name": "x"}), P.NO_TOOLS, None),
        Case("null tools", _j({"tools": None}), P.NO_TOOLS, None),
        Case("tools is a string", _j({"tools": "a,b"}), P.NO_TOOLS, None),
        Case(
            "tools is an object, metadata a list",
            _j({"tools": {"a": 1}, "toolMetadata": []}),
            P.NO_TOOLS,
            None,
        ),
    ]
    surviving = [
        Case(
            "null tools with metadata",
            _j({"tools": None, "toolMetadata": {"good": GOOD_META}}),
            P.WRONG_TYPE,
            ("good",),
        ),
        Case(
            "metadata is a list",
            _j({"tools": ["good"], "toolMetadata": [GOOD_META]}),
            P.WRONG_TYPE,
            ("good",),
        ),
        Case("tool name null", _with_good([None]), P.INVALID_TOOL_NAME, ("good",)),
        Case("tool name number", _with_good([7]), P.INVALID_TOOL_NAME, ("good",)),
        Case(
            "tool name object",  # a tool object in `tools` is read; its name is not text
            _with_good([{"name": {"x": 1}, "kwargs": []}]),
            P.INVALID_TOOL_NAME,
            ("good",),
        ),
        Case("tool name empty", _with_good([""]), P.INVALID_TOOL_NAME, ("good",)),
        Case("tool name blank", _with_good(["   "]), P.INVALID_TOOL_NAME, ("good",)),
        Case(
            "tool name newline",
            _with_good(["evil\nname"]),
            P.INVALID_TOOL_NAME,
            ("good",),
        ),
        Case(
            "tool name escape sequence",
            _with_good(["\u001b[31mred"]),
            P.INVALID_TOOL_NAME,
            ("good",),
        ),
        Case(
            "tool name C1 control",
            _with_good(["x\u0085y"]),
            P.INVALID_TOOL_NAME,
            ("good",),
        ),
        Case("tool name NUL", _with_good(["a\u0000b"]), P.INVALID_TOOL_NAME, ("good",)),
        Case(
            "absurdly long tool name",
            _with_good(["n" * 100_000]),
            P.INVALID_TOOL_NAME,
            ("good",),
        ),
        Case("duplicate tool name", _with_good(["good"]), P.DUPLICATE_TOOL, ("good",)),
        Case(
            "terminal escape in a metadata key",
            _j(
                {
                    "tools": ["good"],
                    "toolMetadata": {"good": GOOD_META, "\u001b]0;pwned\u0007": {}},
                }
            ),
            P.INVALID_TOOL_NAME,
            ("good",),
        ),
        Case(
            "long name only in metadata",
            _j({"tools": ["good"], "toolMetadata": {"good": GOOD_META, "m" * 500: {}}}),
            P.INVALID_TOOL_NAME,
            ("good",),
        ),
        _meta_case("metadata null", None, P.INVALID_TOOL),
        _meta_case("metadata string", "a tool", P.INVALID_TOOL),
        _meta_case("metadata list", [1, 2], P.INVALID_TOOL),
        _meta_case("description number", {"description": 3}, P.WRONG_TYPE),
        _meta_case("description huge", {"description": "d" * 200_000}, P.TEXT_TOO_LONG),
        _meta_case("input string", {"input": "text"}, P.WRONG_TYPE),
        _meta_case("output list", {"output": []}, P.WRONG_TYPE),
        _meta_case(
            "output schema not a schema",
            {"output": {"schema": {"type": "nonsense"}}},
            P.INVALID_OUTPUT_SCHEMA,
        ),
        _meta_case(
            "input schema without properties",
            {"input": {"schema": {"type": "string"}}},
            P.INVALID_ARGUMENT_SCHEMA,
        ),
        _meta_case(
            "input schema invalid",
            {"input": {"schema": {"type": "object", "properties": 5}}},
            P.INVALID_ARGUMENT_SCHEMA,
        ),
        _meta_case("arguments is a number", {"arguments": 5}, P.WRONG_TYPE),
        _meta_case("argument not an object", {"arguments": [None]}, P.INVALID_ARGUMENT),
        _meta_case(
            "argument identifier missing",
            {"arguments": [{"type": "int"}]},
            P.INVALID_ARGUMENT,
        ),
        _meta_case(
            "argument identifier injection",
            {"arguments": [{"identifier": "a; rm -rf /", "type": "int"}]},
            P.INVALID_ARGUMENT,
        ),
        _meta_case(
            "argument identifier absurd",
            {"kwargs": [{"identifier": "a" * 10_000, "type": "int"}]},
            P.INVALID_ARGUMENT,
        ),
        _meta_case(
            "argument duplicate",
            {"kwargs": [{"identifier": "a", "type": "int"}] * 2},
            P.DUPLICATE_ARGUMENT,
        ),
        _meta_case(
            "argument type unknown",
            {"kwargs": [{"identifier": "a", "type": "__import__('os')"}]},
            P.UNKNOWN_ARGUMENT_TYPE,
        ),
        _meta_case(
            "argument type nested absurdly",
            {"kwargs": [{"identifier": "a", "type": "list[" * 50 + "int" + "]" * 50}]},
            P.UNKNOWN_ARGUMENT_TYPE,
        ),
        _meta_case(
            "argument schema invalid",
            {
                "arguments": [
                    {"identifier": "a", "type": "int", "schema": {"minimum": "x"}}
                ]
            },
            P.INVALID_ARGUMENT_SCHEMA,
            withheld=False,  # a warning here: the type's own schema is used
        ),
        _meta_case(
            "argument required not bool",
            {"arguments": [{"identifier": "a", "type": "int", "required": 1}]},
            P.WRONG_TYPE,
        ),
        _meta_case(
            "too many arguments",
            {"arguments": [{"identifier": f"a{i}", "type": "int"} for i in range(500)]},
            P.INVALID_ARGUMENT,
        ),
        _meta_case("examples not a list", {"examples": "e.g. 3"}, P.WRONG_TYPE),
        _meta_case("name mismatch", {"name": "impostor"}, P.TOOL_NAME_MISMATCH),
        _meta_case(
            "description holds json",
            {
                "description": json.dumps(
                    {"kwargs": [{"identifier": "a", "type": "int"}]}
                )
            },
            P.DESCRIPTION_JSON_PARSED,
        ),
        _meta_case(
            "description holds deep json",
            {"description": "{" + '"a":[' * 100 + "]" * 100 + "}"},
            P.UNTYPED_INPUT,
        ),
        Case(
            "spec version number",
            _j({"tools": ["good"], "specVersion": 1}),
            P.WRONG_TYPE,
            ("good",),
        ),
        Case(
            "top-level name list",
            _j({"tools": ["good"], "name": ["x"]}),
            P.WRONG_TYPE,
            ("good",),
        ),
        Case(
            "metadata without tools entry",
            _j({"tools": [], "toolMetadata": {"good": GOOD_META}}),
            P.METADATA_WITHOUT_TOOL,
            ("good",),
        ),
        Case(
            "tool without metadata entry",
            _j({"tools": ["good", "x"], "toolMetadata": {"good": GOOD_META}}),
            P.TOOL_WITHOUT_METADATA,
            ("good", "x"),
        ),
        Case("empty tools", _j({"tools": [], "toolMetadata": {}}), P.NO_TOOLS, ()),
        Case("every tool bad", _j({"tools": [1, None, ""]}), P.NO_TOOLS, ()),
    ]
    return rejected + surviving
