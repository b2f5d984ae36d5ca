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

"""Type and description hints from Python source: annotations, literals, docstrings.

Used by :mod:`.derive`. Annotations map onto the type vocabulary of :mod:`..model.types`
(``Optional[X]`` / ``X | None`` -> X plus nullable, ``List[str]`` -> ``list[str]``);
docstrings in Sphinx (``:param x: text``) and Google (``Args:`` / ``x (int): text``) style
give per-parameter descriptions.
"""

import ast
import re
from typing import Any, Dict, List, Optional, Tuple

# --- Python types -> the type vocabulary of .types ------------------------------------
_PYTHON_TYPE_NAMES = {
    "str": "str",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "list": "list",
    "List": "list",
    "Sequence": "list",
    "tuple": "list",
    "Tuple": "list",
    "set": "list",
    "Set": "list",
    "dict": "dict",
    "Dict": "dict",
    "Mapping": "dict",
    "Any": "any",
    "object": "any",
}
_SPHINX_PARAM = re.compile(r"^\s*:param\s+(?:[\w\[\], .]+\s+)?(\w+)\s*:\s*(.*)$")
_GOOGLE_SECTION = re.compile(
    r"^\s*(Args|Arguments|Parameters|Keyword Args|Keyword Arguments|Kwargs)\s*:\s*$"
)
_GOOGLE_ITEM = re.compile(r"^(\s*)(\*{0,2}\w+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")


def parse_param_docs(docstring: str) -> Dict[str, str]:
    """Per-parameter descriptions from a docstring.

    :param docstring: Sphinx (``:param x: text``) or Google (``Args:`` / ``x (int): text``).
    :return: identifier -> one-line description (continuation lines joined).
    """
    docs: Dict[str, str] = {}
    lines = docstring.splitlines()
    current: Optional[str] = None
    in_google = False
    google_indent: Optional[int] = None
    for line in lines:
        sphinx = _SPHINX_PARAM.match(line)
        if sphinx:
            current, in_google = sphinx.group(1), False
            docs[current] = sphinx.group(2).strip()
            continue
        if _GOOGLE_SECTION.match(line):
            in_google, current, google_indent = True, None, None
            continue
        stripped = line.strip()
        if in_google:
            if not stripped:
                current = None
                continue
            indent = len(line) - len(line.lstrip())
            if google_indent is not None and indent < google_indent:
                in_google, current = False, None
                continue
            item = _GOOGLE_ITEM.match(line)
            if item and (google_indent is None or indent == google_indent):
                google_indent = indent
                current = item.group(2).lstrip("*")
                docs[current] = item.group(4).strip()
                continue
        if current and stripped and not stripped.startswith(":"):
            docs[current] = (docs[current] + " " + stripped).strip()
        elif stripped.startswith(":"):
            current = None
    return docs


def literal_type(value: Any) -> str:  # pylint: disable=too-many-return-statements
    """Type vocabulary term of a literal default.

    :param value: a Python literal (from :mod:`.static_values`).
    :return: ``bool``/``int``/``float``/``str``/``list[T]``/``list``/``dict``, "" for others.
    """
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, (list, tuple)):
        kinds = {literal_type(v) for v in value}
        if len(kinds) == 1 and "" not in kinds and value:
            return f"list[{kinds.pop()}]"
        return "list"
    if isinstance(value, dict):
        return "dict"
    return ""


def annotation_type(  # pylint: disable=too-many-return-statements
    node: Optional[ast.expr],
) -> Tuple[str, bool]:
    """Map an annotation to a type vocabulary term.

    :param node: the annotation expression (or None).
    :return: ``(type, nullable)``; ``("any", False)`` when unknown. ``Optional[X]`` and
        ``X | None`` give X with nullable True; ``List[str]`` gives ``list[str]``.
    """
    if node is None:
        return "any", False
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return annotation_type(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return "any", False
    if isinstance(node, ast.Constant) and node.value is None:
        return "any", True
    if isinstance(node, ast.Name):
        return _PYTHON_TYPE_NAMES.get(node.id, "any"), False
    if isinstance(node, ast.Attribute):
        return _PYTHON_TYPE_NAMES.get(node.attr, "any"), False
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union_type([node.left, node.right])
    if isinstance(node, ast.Subscript):
        outer, _ = annotation_type(node.value)
        head = (
            node.value.attr
            if isinstance(node.value, ast.Attribute)
            else getattr(node.value, "id", "")
        )
        if head == "Optional":
            inner, _ = annotation_type(node.slice)
            return inner, True
        if head == "Union":
            members = (
                node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            )
            return _union_type(list(members))
        if outer == "list" and head in ("List", "list", "Sequence", "Set", "set"):
            inner, _ = annotation_type(node.slice)
            return (
                f"list[{inner}]" if inner in ("str", "int", "float", "bool") else "list"
            ), False
        return outer, False
    return "any", False


def _union_type(members: List[ast.expr]) -> Tuple[str, bool]:
    nullable = False
    kinds = set()
    for member in members:
        if isinstance(member, ast.Constant) and member.value is None:
            nullable = True
            continue
        kind, inner_nullable = annotation_type(member)
        nullable = nullable or inner_nullable
        kinds.add(kind)
    if kinds == {"int", "float"}:
        return "float", nullable
    return (kinds.pop() if len(kinds) == 1 else "any"), nullable
