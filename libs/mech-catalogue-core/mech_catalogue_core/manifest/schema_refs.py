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

"""Make a JSON Schema self-contained: resolve ``$ref``, translate dialects, report dangling refs.

A tool's ``input.schema`` may hold ``$ref``s into its own ``$defs`` (2019-09/2020-12) or
``definitions`` (draft-07). Each argument is stored on its own, so its schema must not
point into a document it no longer sits in. :func:`self_contained` rewrites one
sub-schema of a document into a schema that resolves only inside itself:

- references are resolved with the ``referencing`` library under the document's declared
  dialect (``$schema``: draft-07, 2019-09 or 2020-12; 2020-12 when absent or unknown);
- a non-recursive reference is inlined (the target's keywords, plus the ``$ref`` node's
  own siblings; when both constrain the same keyword they are joined with ``allOf``);
- a recursive reference, or any reference once :data:`INLINE_BUDGET` nodes were written
  or deeper than :data:`INLINE_DEPTH` nested schemas (so inlining never multiplies the
  depth the manifest decoder allows), becomes ``{"$ref": "#/$defs/<name>"}`` with the target under ``$defs`` of the returned
  schema (the exporters hoist these to the exported schema's root, where ``#`` points);
- the work is bounded by the source: every node written (and every string, by length)
  is charged to an :class:`InlineBudget` of :data:`INLINE_FACTOR` times the size of the
  source document plus :data:`INLINE_ALLOWANCE` units, shared by every schema of one tool
  while :func:`tool_budget` is active (the parser sets it per tool), else per call. A
  schema whose rewrite exhausts it (reference chains or wide ``anyOf`` reusing the same
  definitions: a doubling chain of 20 ``$defs`` expands about a million times) is
  replaced by the fallback below with a :data:`.problems.SCHEMA_BUDGET_EXCEEDED` warning
  naming it: the tool is kept, that argument (or output schema) is taken as any value;
- a rewrite nests at most :data:`MAX_REWRITE_DEPTH` schemas, the definitions references
  lead into included: a deeper one (a chain of definitions each referring to the next)
  is replaced by the fallback below with a warning, so the result never depends on
  Python's recursion limit or on how deep the caller's stack is (agents must agree);
- a reference that does not resolve (a missing pointer, an anchor that does not exist,
  any remote URI: nothing is fetched) is replaced by the **documented fallback**: the
  empty schema ``{}`` ("any JSON value", the vocabulary's ``any``), keeping the node's
  ``title`` and ``description``; a :data:`.problems.INVALID_ARGUMENT_SCHEMA` warning names
  its JSON Pointer. That is for one argument's schema; a tool's output schema is whole
  or nothing (:func:`whole_schema`): a client validates results against it, so such a
  reference, or a rewrite over the budget or too deep, drops it with one error at its
  own pointer;
- a reference whose target depends on where the schema is nested or what refers to it
  (``$dynamicRef``, ``$recursiveRef``: :data:`SCOPED_REFERENCES`) cannot be rewritten
  into one that means the same once the schema is stored on its own or nested in another
  (a server's envelope: adv29zz E1); it is treated as a reference that does not resolve
  (the fallback, or the whole output schema dropped);
- draft-07 keywords without a 2020-12 meaning are translated: ``definitions`` (dropped
  once resolved), array-form ``items`` -> ``prefixItems`` (+ ``additionalItems`` ->
  ``items``, 2019-09's too), ``dependencies`` -> ``dependentRequired`` /
  ``dependentSchemas``, draft-04 boolean ``exclusiveMinimum``/``exclusiveMaximum`` ->
  their numeric form; the result is always 2020-12 and its only ``$`` keywords are
  ``$ref`` (``#/$defs/<name>``) and the root's ``$defs``: every other one
  (``$schema``, ``$id``, anchors, ``$comment``, ``$vocabulary``, a later draft's
  keyword) is dropped, as 2020-12 gives none of them a meaning in a schema without
  ``$id`` and anchors.

Nothing here raises on input: bad shapes become problems.
"""

import copy
import json
import re
from contextvars import ContextVar
from typing import Any, Dict, List, Optional, Tuple

import referencing.jsonschema
from mech_catalogue_core.manifest.keywords import (
    DEFINITIONS,
    NAMED_SUBSCHEMAS,
    SUBSCHEMA_LIST,
    SUBSCHEMA_ONE,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.memo import (
    bounded_memo,
)
from referencing import Registry
from referencing.exceptions import Unresolvable

#: The URI the document is registered under (relative refs resolve against it).
BASE_URI = "urn:mech-catalogue:schema"
#: Nodes written by inlining before further references go to ``$defs`` instead.
INLINE_BUDGET = 2000
#: Nesting (schemas inside schemas) below which references are still inlined.
INLINE_DEPTH = 24
#: Nesting a rewrite may reach at all, counting the schemas references lead into: a
#: chain of definitions each referring to the next is cut here, deterministically, long
#: before Python's recursion limit (about 5 frames a level), whatever the caller's stack.
MAX_REWRITE_DEPTH = 96
#: Units a tool's schemas may write, per unit of their source (see :class:`InlineBudget`).
INLINE_FACTOR = 4
#: Units every budget allows on top (small schemas that reuse a definition stay typed).
INLINE_ALLOWANCE = 512
#: A string costs one unit plus one per this many characters.
STRING_UNIT = 16
#: Sub-schemas without ``$ref`` whose rewrite is memoised (by dialect and JSON text).
REF_FREE_MEMO_ENTRIES = 2048
#: Longest JSON text (characters) of a sub-schema whose rewrite is memoised.
REF_FREE_MEMO_TEXT = 4096
#: characters a memo entry may hold (the ``$schema`` URI, the text and its rewrite): a
#: long ``$schema`` string is not kept either
REF_FREE_MEMO_CHARS = 1 << 14
#: characters the memo holds at most
REF_FREE_MEMO_TOTAL = 1 << 22
#: The fallback written in place of a reference that does not resolve.
FALLBACK_SCHEMA: Dict[str, Any] = {}
_ANNOTATIONS = ("title", "description")
#: what ``referencing`` and ``urllib.parse`` raise on a reference or ``$id`` that is no
#: usable URI or pointer (``http://[`` raises ValueError from ``urljoin``): such a
#: reference is dangling, such an ``$id`` changes no base
_URI_ERRORS = (Unresolvable, ValueError, TypeError, LookupError)
_DEF_NAME = re.compile(r"[^A-Za-z0-9_.-]")
_DRAFT7_LIKE = ("draft-07", "draft-06", "draft-04", "draft-03")

#: keywords dropped from every rewritten schema: a base, an anchor, a dialect (the result
#: is 2020-12 and resolves only ``#/$defs/<name>``), a comment; any other ``$`` keyword
#: (a later draft's, which a client might read as a reference) is dropped too
_DROPPED = ("id",)
#: references resolved against the dynamic scope (where the schema is nested, what
#: referred to it: 2020-12's ``$dynamicRef``, 2019-09's ``$recursiveRef``): no rewrite
#: keeps their meaning once the schema is stored on its own or nested in another
SCOPED_REFERENCES = ("$dynamicRef", "$recursiveRef")
_REFERENCE_TEXTS = tuple(f'"{key}"' for key in ("$ref",) + SCOPED_REFERENCES)


def units(value: Any) -> int:
    """Size of a JSON value in budget units: one per node, strings by length.

    :param value: a JSON value (dicts count their keys as strings).
    :return: the units, >= 1.
    """
    total, stack = 0, [value]
    while stack:
        node = stack.pop()
        total += 1
        if isinstance(node, str):
            total += len(node) // STRING_UNIT
        elif isinstance(node, dict):
            total += sum(1 + len(str(k)) // STRING_UNIT for k in node)
            stack.extend(node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
    return total


class BudgetExceeded(Exception):
    """Raised inside a rewrite when its :class:`InlineBudget` runs out."""


class NestingExceeded(Exception):
    """Raised inside a rewrite that nests deeper than :data:`MAX_REWRITE_DEPTH`."""


class Dangling(Exception):
    """Raised inside a rewrite of a whole-or-nothing schema at a reference that does not resolve.

    :param path: the reference's pointer inside the document.
    :param ref: the reference.
    :param key: its keyword (``$ref``, or one of :data:`SCOPED_REFERENCES`).
    """

    def __init__(self, path: str, ref: Any, key: str = "$ref") -> None:
        """Keep where and what.

        :param path: the reference's pointer inside the document.
        :param ref: the reference.
        :param key: its keyword.
        """
        super().__init__(path)
        self.path, self.ref, self.key = path, ref, key


class InlineBudget:
    """Units the rewrites of one tool's schemas may still write.

    The limit is :data:`INLINE_FACTOR` x ``units(source)`` + :data:`INLINE_ALLOWANCE`;
    sizing the source is put off until more than :data:`INLINE_ALLOWANCE` units were
    spent (below that no limit can be reached), so most tools never pay for it.

    :param source: the source they come from (a tool's metadata, or one schema document).
    :param limit: the limit itself, when known (then ``source`` is not sized).
    """

    def __init__(self, source: Any, limit: Optional[int] = None) -> None:
        """Keep the source; nothing is spent yet."""
        self._source = source
        self._limit = limit
        self.spent = 0

    @property
    def limit(self) -> int:
        """The units this budget allows (sizes the source on first use).

        :return: the limit.
        """
        if self._limit is None:
            self._limit = INLINE_FACTOR * units(self._source) + INLINE_ALLOWANCE
            self._source = None
        return self._limit

    @property
    def remaining(self) -> int:
        """Units left (negative once exceeded).

        :return: the units left.
        """
        return self.limit - self.spent

    def allows(self, amount: int) -> bool:
        """Whether :meth:`charge` of ``amount`` more units would pass.

        :param amount: units.
        :return: True when charging them would not raise :class:`BudgetExceeded`.
        """
        spent = self.spent + amount
        return spent <= INLINE_ALLOWANCE or spent <= self.limit

    def charge(self, amount: int) -> None:
        """Spend units.

        :param amount: units written.
        :raises BudgetExceeded: when no units are left.
        """
        self.spent += amount
        if self.spent > INLINE_ALLOWANCE and self.spent > self.limit:
            raise BudgetExceeded()


_TOOL_BUDGET: ContextVar[Optional[InlineBudget]] = ContextVar(
    "mech_catalogue_tool_inline_budget", default=None
)


def current_budget() -> Optional[InlineBudget]:
    """The budget :func:`tool_budget` shares here, if any.

    :return: the tool's budget, or None outside :func:`tool_budget`.
    """
    return _TOOL_BUDGET.get()


class tool_budget:  # pylint: disable=invalid-name  # a context manager used as a function
    """Share one :class:`InlineBudget` among the :func:`self_contained` calls inside.

    ``with tool_budget(source) as budget:``. A class rather than a ``contextmanager``
    generator: it is entered once per tool parsed, and the generator machinery cost
    more than the rest of it.

    :param source: the tool's metadata (what its schemas are rewritten from).
    """

    __slots__ = ("_budget", "_token")

    def __init__(self, source: Any) -> None:
        """Make the budget; it is shared once entered.

        :param source: the tool's metadata.
        """
        self._budget = InlineBudget(source)
        self._token: Any = None

    def __enter__(self) -> InlineBudget:
        """Share the budget.

        :return: the budget.
        """
        self._token = _TOOL_BUDGET.set(self._budget)
        return self._budget

    def __exit__(self, *_: Any) -> None:
        """Stop sharing it (whatever happened inside).

        :param _: the exception details, if any (not suppressed).
        """
        _TOOL_BUDGET.reset(self._token)


def dialect_of(document: Any) -> Any:
    """The ``referencing`` specification a document declares (2020-12 by default).

    :param document: a schema document.
    :return: a ``referencing.Specification``.
    """
    uri = document.get("$schema") if isinstance(document, dict) else None
    if isinstance(uri, str):
        try:
            return referencing.jsonschema.specification_with(uri)
        except referencing.jsonschema.UnknownDialect:
            pass
    return referencing.jsonschema.DRAFT202012


class _Bundler:  # pylint: disable=too-few-public-methods,too-many-instance-attributes
    """One rewrite of one document's sub-schema (state: stack, definitions, budget)."""

    def __init__(
        self,
        document: Any,
        where: str,
        budget: InlineBudget,
        code: str = P.INVALID_ARGUMENT_SCHEMA,
        whole: bool = False,
    ) -> None:
        self.whole = whole
        self.specification = dialect_of(document)
        self.draft7 = self.specification.name in _DRAFT7_LIKE
        self.array_items = self.draft7 or self.specification.name == "draft2019-09"
        self.document = document
        self._resolver: Any = None
        self.where = where
        self.code = code
        self.problems: List[P.Problem] = []
        self.defs: Dict[str, Any] = {}
        self.def_names: Dict[int, str] = {}
        self.stack: List[int] = []
        self.written = 0
        self.level = 0
        self.budget = budget

    def rewrite(self, node: Any, path: str, resolver: Any) -> Any:
        """Rewrite one node (see the module docstring).

        :param node: a schema or keyword value of the document.
        :param path: its pointer inside the document (for problems).
        :param resolver: the ``referencing`` resolver for its base URI (None: the
            document's own, built when first needed).
        :return: the rewritten copy.
        :raises NestingExceeded: when the node sits deeper than
            :data:`MAX_REWRITE_DEPTH` nested schemas.
        """
        self.written += 1
        if not isinstance(node, dict):
            self.budget.charge(units(node))
            return node if isinstance(node, bool) else copy.deepcopy(node)
        self.budget.charge(1 + sum(1 + len(str(k)) // STRING_UNIT for k in node))
        if self.level >= MAX_REWRITE_DEPTH:
            raise NestingExceeded()
        self.level += 1
        try:
            return self._rewrite_object(node, path, resolver)
        finally:
            self.level -= 1

    def base_resolver(self) -> Any:
        """The resolver for the document's own URI, built on the first reference met.

        :return: a ``referencing`` resolver.
        """
        if self._resolver is None:
            resource = self.specification.create_resource(self.document)
            registry = Registry().with_resource(BASE_URI, resource)
            self._resolver = registry.resolver(BASE_URI)
        return self._resolver

    def _rewrite_object(self, node: Dict[str, Any], path: str, resolver: Any) -> Any:
        scoped = [key for key in SCOPED_REFERENCES if key in node]
        if scoped:
            return self._unresolved(node, path, scoped[0], node[scoped[0]])
        if isinstance(node.get("$ref"), str):
            return self._reference(node, path, resolver)
        if isinstance(node.get("$id"), str):
            try:
                base = resolver if resolver is not None else self.base_resolver()
                resolver = base.in_subresource(self.specification.create_resource(node))
            except _URI_ERRORS:
                pass  # references inside resolve against the base around the node
        out: Dict[str, Any] = {}
        for key, value in node.items():
            if key in _DROPPED or key in DEFINITIONS or key.startswith("$"):
                continue  # a "$ref" that is no string is no reference either
            out[key] = self._keyword(key, value, f"{path}/{key}", resolver)
        if self.array_items:
            _translate_items(out)
        if self.draft7:
            _translate_draft7(out)
        return out

    def _unresolved(self, node: Dict[str, Any], path: str, key: str, ref: Any) -> Any:
        """A reference that does not resolve inside the schema: the fallback, or raise.

        :param node: the schema holding it.
        :param path: its pointer inside the document.
        :param key: the reference keyword (``$ref``, or one of :data:`SCOPED_REFERENCES`).
        :param ref: its value.
        :return: the fallback ``{}`` with the node's ``title`` and ``description``.
        :raises Dangling: for a whole-or-nothing schema.
        """
        if self.whole:
            raise Dangling(path, ref, key)
        kept = {k: node[k] for k in _ANNOTATIONS if k in node}
        self.problems.append(
            P.warning(
                self.code,
                f"{self.where}{path} has the reference {str(ref)[:120]!r}, which "
                + _unresolved_reason(key)
                + "; it is taken as any JSON value. Point it at $defs in the same "
                "schema with $ref.",
                self.where + path,
            )
        )
        self.budget.charge(units(kept))
        return {**copy.deepcopy(FALLBACK_SCHEMA), **copy.deepcopy(kept)}

    def _keyword(self, key: str, value: Any, path: str, resolver: Any) -> Any:
        if key in SUBSCHEMA_ONE and isinstance(value, (dict, bool)):
            return self.rewrite(value, path, resolver)
        if key == "items" and isinstance(value, list):
            return [
                self.rewrite(v, f"{path}/{i}", resolver) for i, v in enumerate(value)
            ]
        if key in NAMED_SUBSCHEMAS and isinstance(value, dict):
            return {
                k: self.rewrite(v, path + P.pointer(k), resolver)
                for k, v in value.items()
            }
        if key in SUBSCHEMA_LIST and isinstance(value, list):
            return [
                self.rewrite(v, f"{path}/{i}", resolver) for i, v in enumerate(value)
            ]
        if key == "dependencies" and isinstance(value, dict):
            return {
                k: (
                    self.rewrite(v, path + P.pointer(k), resolver)
                    if isinstance(v, dict)
                    else copy.deepcopy(v)
                )
                for k, v in value.items()
            }
        self.budget.charge(units(value))
        return copy.deepcopy(value)

    def _reference(self, node: Dict[str, Any], path: str, resolver: Any) -> Any:
        ref = node["$ref"]
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if self.draft7:  # draft-07: keywords beside $ref are ignored, annotations kept
            siblings = {k: v for k, v in siblings.items() if k in _ANNOTATIONS}
        try:
            if resolver is None:
                resolver = self.base_resolver()
            resolved = resolver.lookup(ref)
        except _URI_ERRORS:
            resolved = None
        if resolved is None:
            return self._unresolved(siblings, path, "$ref", ref)
        target = resolved.contents
        key = id(target)
        if key in self.stack or (
            isinstance(target, dict)
            and (self.written > INLINE_BUDGET or self.level > INLINE_DEPTH)
        ):
            name = self._define(ref, target, resolved.resolver, path)
            reference: Dict[str, Any] = {"$ref": f"#/$defs/{name}"}
            rest = self.rewrite(siblings, path, resolver) if siblings else {}
            return _merge(reference, rest)
        self.stack.append(key)
        try:
            inlined = self.rewrite(target, path, resolved.resolver)
        finally:
            self.stack.pop()
        rest = self.rewrite(siblings, path, resolver) if siblings else {}
        return _merge(inlined, rest)

    def _define(self, ref: str, target: Any, resolver: Any, path: str) -> str:
        key = id(target)
        if key in self.def_names:
            return self.def_names[key]
        stem = _DEF_NAME.sub("_", ref.rstrip("/").rsplit("/", 1)[-1]) or "root"
        name, number = stem, 1
        while name in self.defs:
            number += 1
            name = f"{stem}_{number}"
        self.def_names[key] = name
        self.defs[name] = {}  # reserve before rewriting: the target may refer to itself
        self.stack.append(key)
        try:
            self.defs[name] = self.rewrite(target, path, resolver)
        finally:
            self.stack.pop()
        return name


def _merge(base: Any, extra: Dict[str, Any]) -> Any:
    if not extra:
        return base
    if not isinstance(base, dict):
        return {"allOf": [base, extra]} if base is not True else extra
    overlap = (set(base) & set(extra)) - set(_ANNOTATIONS)
    if overlap:
        return {"allOf": [base, extra]}
    return {**base, **extra}


def _unresolved_reason(key: str) -> str:
    """Why a reference keyword is not followed, as a clause after "which".

    :param key: ``$ref``, or one of :data:`SCOPED_REFERENCES`.
    :return: the clause.
    """
    if key in SCOPED_REFERENCES:
        return (
            f"is a {key}: its target depends on where the schema is nested, so it "
            "is not followed"
        )
    return "does not resolve inside the schema (nothing is fetched)"


def _translate_items(node: Dict[str, Any]) -> None:
    """Array-form ``items`` (draft-07, 2019-09) -> ``prefixItems``, in place."""
    items = node.get("items")
    if isinstance(items, list):
        node["prefixItems"] = node.pop("items")
        if "additionalItems" in node:
            node["items"] = node.pop("additionalItems")
    else:
        node.pop("additionalItems", None)  # without array items it has no effect


def _translate_draft7(node: Dict[str, Any]) -> None:
    for bound, exclusive in (
        ("minimum", "exclusiveMinimum"),
        ("maximum", "exclusiveMaximum"),
    ):
        if isinstance(node.get(exclusive), bool):
            if node.pop(exclusive) and bound in node:
                node[exclusive] = node.pop(bound)
    dependencies = node.pop("dependencies", None)
    if isinstance(dependencies, dict):
        required = {k: v for k, v in dependencies.items() if isinstance(v, list)}
        schemas = {k: v for k, v in dependencies.items() if not isinstance(v, list)}
        if required:
            node["dependentRequired"] = required
        if schemas:
            node["dependentSchemas"] = schemas


def _ref_free_text(document: Any, node: Any) -> Optional[Tuple[Optional[str], str]]:
    """The memo key of a sub-schema whose rewrite cannot depend on the rest of its document.

    Without a ``$ref`` anywhere inside, the rewrite of ``node`` depends only on its own
    JSON text (key order included) and on the document's ``$schema``.

    :param document: the whole schema document.
    :param node: the sub-schema to rewrite.
    :return: (the ``$schema`` string or None, the JSON text), or None when the node holds
        a ``$ref``, is not plain JSON, or is longer than :data:`REF_FREE_MEMO_TEXT`.
    """
    uri = document.get("$schema") if isinstance(document, dict) else None
    try:
        text = json.dumps(node)
    except (TypeError, ValueError, RecursionError):
        return None
    if len(text) > REF_FREE_MEMO_TEXT or any(ref in text for ref in _REFERENCE_TEXTS):
        return None
    return (uri if isinstance(uri, str) else None), text


@bounded_memo(REF_FREE_MEMO_ENTRIES, REF_FREE_MEMO_CHARS, REF_FREE_MEMO_TOTAL)
def _ref_free_rewrite(uri: Optional[str], text: str) -> Optional[Tuple[str, int]]:
    """Rewrite a ``$ref``-free sub-schema once; what it costs is charged on every use.

    :param uri: the document's ``$schema`` (None when absent or not a string).
    :param text: the sub-schema's JSON text.
    :return: (the rewritten schema's JSON text, the budget units the rewrite charges), or
        None when the rewrite reported a problem (the caller then rewrites it itself).
    """
    node = json.loads(text)
    budget = InlineBudget(None, limit=1 << 62)
    bundler = _Bundler({} if uri is None else {"$schema": uri}, "", budget)
    bundler.stack.append(id(node))
    try:
        result = bundler.rewrite(node, "", None)
    except RecursionError:
        return None
    if bundler.problems or bundler.defs:  # pragma: no cover - only a $ref makes either
        return None
    return json.dumps(result), budget.spent


def _over_budget(
    node: Any, where: str, inner: str, budget: InlineBudget
) -> Tuple[Any, List[P.Problem]]:
    kept = {k: node[k] for k in _ANNOTATIONS if isinstance(node, dict) and k in node}
    problem = P.warning(
        P.SCHEMA_BUDGET_EXCEEDED,
        f"{where}{inner} expands past {budget.limit} units when its references "
        f"are resolved ({INLINE_FACTOR} x the tool's own size + "
        f"{INLINE_ALLOWANCE}); it is taken as any JSON value. Reuse fewer "
        "definitions, or nest them less.",
        where + inner,
    )
    return {**copy.deepcopy(FALLBACK_SCHEMA), **copy.deepcopy(kept)}, [problem]


def self_contained(
    document: Any,
    pointer_parts: Tuple[str, ...] = (),
    where: str = "",
    code: str = P.INVALID_ARGUMENT_SCHEMA,
    whole: bool = False,
) -> Tuple[Any, List[P.Problem]]:
    """Rewrite a sub-schema of ``document`` so that it resolves only inside itself.

    A sub-schema without any ``$ref`` is rewritten once per distinct JSON text and
    dialect (memoised, :data:`REF_FREE_MEMO_ENTRIES` entries): the same units are charged
    to the budget as a fresh rewrite would charge, and a fresh copy is returned.

    :param document: the whole schema document (e.g. a tool's ``input.schema``).
    :param pointer_parts: keys from the document to the sub-schema (``()`` = the document).
    :param where: JSON Pointer of ``document`` in the manifest, prefixed to problem paths.
    :param code: the problem code of a dangling reference (a warning).
    :param whole: raise :class:`Dangling` at a reference that does not resolve instead
        of writing the fallback (:func:`whole_schema` drops such a schema).
    :return: (the 2020-12 schema, with a ``$defs`` member when recursive or over the
        inline budget; warnings for dangling references). With ``whole``, the
        :class:`Dangling` the rewrite raises at the first reference that does not
        resolve goes through to the caller.
    """
    node = document
    for part in pointer_parts:
        node = node[part]
    inner = "".join(P.pointer(p) for p in pointer_parts)
    budget = _TOOL_BUDGET.get() or InlineBudget(document)
    memo_key = _ref_free_text(document, node)
    memo = _ref_free_rewrite(*memo_key) if memo_key is not None else None
    if memo is not None:
        text, cost = memo
        try:
            budget.charge(cost)
        except BudgetExceeded:
            return _over_budget(node, where, inner, budget)
        return json.loads(text), []
    bundler = _Bundler(document, where, budget, code, whole)
    key = id(node)
    bundler.stack.append(key)
    try:
        result = bundler.rewrite(node, inner, None)
    except BudgetExceeded:
        fallback, problems = _over_budget(node, where, inner, budget)
        return fallback, bundler.problems + problems
    except (
        NestingExceeded,
        RecursionError,
    ):  # the latter only under a very deep caller
        bundler.problems.append(
            P.warning(
                code,
                f"{where}{inner} nests more than {MAX_REWRITE_DEPTH} schemas deep once its "
                "references are followed; it is taken as any JSON value. Shorten the "
                "chain of definitions that refer to one another.",
                where + inner,
            )
        )
        return copy.deepcopy(FALLBACK_SCHEMA), bundler.problems
    if key in bundler.def_names:  # the sub-schema refers to itself
        name = bundler.def_names[key]
        bundler.defs[name] = result
        result = {"$ref": f"#/$defs/{name}"}
    if bundler.defs:
        result = _merge(result, {}) if not isinstance(result, dict) else result
        if isinstance(result, dict):
            result = {**result, "$defs": bundler.defs}
        else:  # pragma: no cover - a boolean root never refers to anything
            result = {"allOf": [result], "$defs": bundler.defs}
    return result, bundler.problems


def whole_schema(
    document: Any, where: str, code: str = P.INVALID_OUTPUT_SCHEMA
) -> Tuple[Optional[Any], List[P.Problem]]:
    """Make a whole schema self-contained, or drop it when it cannot be made so faithfully.

    For a tool's output schema: a client validates results against it, so a schema with
    a part replaced by the fallback ``{}`` would mislead it. A reference that does not
    resolve, a rewrite over the inline budget or nested past :data:`MAX_REWRITE_DEPTH`
    drops the whole schema, with one error at the schema's own pointer.

    :param document: the schema (a dict or a boolean, already checked as a JSON Schema).
    :param where: its JSON Pointer in the manifest.
    :param code: the problem code (:data:`.problems.INVALID_OUTPUT_SCHEMA`).
    :return: (the 2020-12 schema, no problem), or (None, one error naming what was
        wrong and where inside the schema).
    """
    try:
        result, problems = self_contained(document, (), where, code, whole=True)
    except Dangling as dangling:
        return None, [
            P.error(
                code,
                f"{where} was dropped: its reference {str(dangling.ref)[:120]!r} at "
                f"{where}{dangling.path} {_unresolved_reason(dangling.key)}, so the "
                "tool is offered without structured output. Point the reference at "
                "$defs in the same schema with $ref.",
                where,
            )
        ]
    if problems:
        return None, [
            P.error(
                code,
                f"{where} was dropped: once its references are followed it expands past "
                "the inline budget or nests too deep, so the tool is offered without "
                "structured output. Reuse fewer definitions, or nest them less.",
                where,
            )
        ]
    return result, []
