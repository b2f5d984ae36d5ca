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

"""The normalised, immutable manifest model shared by every agent of the service.

Shape::

    Catalogue ── mechs: tuple[Mech]            (sorted by MechRef)
      Mech ── ref: MechRef (registry kind, chain id, registry address, id)
           ── digest / cid / status / observed_block / problems
           ── name, description, extra_json (other top-level manifest fields)
           ── tools: tuple[Tool]               (manifest order)
        Tool ── name, description, input/output blocks, examples, extra_json
             ── arguments: tuple[Argument]
             ── provenance: Provenance (mech, registry, CID, digest, manifest shape)
          Argument ── identifier, type (types.py vocabulary), schema_json, required,
                      default_json, description

Every JSON-valued field is stored as RFC 8785 canonical text (``*_json: str``), so the
dataclasses are frozen all the way down, hashable, and :meth:`Catalogue.digest` is
identical on every agent. Properties with the same name minus ``_json`` return a fresh
decoded copy. MechRef, Provenance, Argument and Tool are imported from :mod:`.tool` (their
one import path); statuses are :class:`.vocabulary.MechStatus`.
"""

from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple

from mech_catalogue_core.model.canonical import (
    CanonicalText,
    canonical_bytes,
    canonical_text,
    decode,
    sha256_hex,
)
from mech_catalogue_core.model.market import (
    MechFacts,
)
from mech_catalogue_core.model.memo import (
    bounded_memo,
)
from mech_catalogue_core.model.problems import (
    Problem,
    unique_problems,
)
from mech_catalogue_core.model.tool import (
    EMPTY_OBJECT_JSON,
    MechRef,
    Provenance,
    Tool,
)
from mech_catalogue_core.model.vocabulary import (
    MechStatus,
)

__all__ = [
    "MECH_STATUSES",
    "MODEL_VERSION",
    "STATUS_HASH_MISMATCH",
    "STATUS_INVALID",
    "STATUS_NO_HASH",
    "STATUS_OK",
    "STATUS_UNAVAILABLE",
    "Catalogue",
    "Manifest",
    "Mech",
    "Problem",
    "ToolCollision",
]

MODEL_VERSION = 1

# The older names hold the plain ``str`` values of :class:`.vocabulary.MechStatus` (the one
# definition), as :data:`.tool.REGISTRY_KINDS` does.
STATUS_OK = MechStatus.OK.value
STATUS_INVALID = MechStatus.INVALID.value
STATUS_HASH_MISMATCH = MechStatus.HASH_MISMATCH.value
STATUS_UNAVAILABLE = MechStatus.UNAVAILABLE.value
STATUS_NO_HASH = MechStatus.NO_HASH.value
MECH_STATUSES: Tuple[str, ...] = tuple(status.value for status in MechStatus)


@dataclass(frozen=True, slots=True)
class Manifest:
    """A parsed manifest on its own (before it is tied to a mech on chain).

    :param name: top-level ``name`` ("" when absent).
    :param description: top-level ``description``.
    :param tools: the valid tools, in ``tools`` order then extra ``toolMetadata`` keys.
    :param extra_json: canonical JSON object of all other top-level fields
        (``inputFormat``, ``outputFormat``, ``image``, ``url``, unknown ones...).
    :param spec_version: the declared ``specVersion`` ("" for today's unversioned shape).
    :param withheld: the tools not offered because of an error-level problem, as parsed
        (docs/manifest-spec.md, "Errors withhold, warnings inform").
    """

    name: str = ""
    description: str = ""
    tools: Tuple[Tool, ...] = ()
    extra_json: str = EMPTY_OBJECT_JSON
    spec_version: str = ""
    withheld: Tuple[Tool, ...] = ()

    @property
    def extra(self) -> Dict[str, Any]:
        """Return a fresh copy of the other top-level fields.

        :return: a fresh copy of the other top-level fields.
        """
        return decode(self.extra_json)

    @property
    def tool_names(self) -> Tuple[str, ...]:
        """Return the tool names, in order.

        :return: the tool names, in order.
        """
        return tuple(t.name for t in self.tools)


#: entries of the body-digest memo (emptied when full: a miss only costs time)
BODY_MEMO_ENTRIES = 4096
#: a mech body holding more characters of text is digested each time, not memoised
BODY_MEMO_CHARS = 1 << 16
#: characters of mech bodies the memo holds at most
BODY_MEMO_TOTAL = 1 << 23
#: entries of the provenance-text memo; a provenance holds a few short fields
PROVENANCE_MEMO_ENTRIES = 4096
#: characters a memoised provenance and its text may hold together
PROVENANCE_MEMO_CHARS = 1 << 10

#: tool fields that belong to its body (everything but ``provenance``)
_TOOL_BODY_FIELDS = tuple(f.name for f in fields(Tool) if f.name != "provenance")


def _body_key(mech: "Mech") -> Tuple[Any, ...]:
    return (
        mech.name,
        mech.description,
        mech.extra_json,
        tuple(tuple(getattr(t, f) for f in _TOOL_BODY_FIELDS) for t in mech.tools),
        mech.problems,
        mech.spec_version,
        mech.withheld,
    )


def _body_chars(_: Any, result: Tuple[str, int]) -> int:
    return result[1]


@bounded_memo(BODY_MEMO_ENTRIES, BODY_MEMO_CHARS, BODY_MEMO_TOTAL, size=_body_chars)
def _body_digest_of(key: Tuple[Any, ...]) -> Tuple[str, int]:
    """The digest of a mech body, and the characters its key holds at most.

    :param key: :func:`_body_key` of the mech.
    :return: (sha2-256 hex of the body's RFC 8785 form, the length of that form plus the
        digest's: the form writes every text of the key, escaped, so it is at least as
        long as the key's text, which is what the memo measures without walking it).
    """
    name, description, extra_json, tools, problems, spec_version, withheld = key
    body = {
        "name": name,
        "description": description,
        "extra": CanonicalText(extra_json),
        "tools": [
            CanonicalText(Tool(**dict(zip(_TOOL_BODY_FIELDS, tool))).canonical_body())
            for tool in tools
        ],
        "problems": [p.to_dict() for p in problems],
        "spec_version": spec_version,
        "withheld": list(withheld),
    }
    text = canonical_bytes(body)
    return sha256_hex(text), len(text) + 64


@bounded_memo(PROVENANCE_MEMO_ENTRIES, PROVENANCE_MEMO_CHARS)
def _provenance_text(provenance: Provenance) -> CanonicalText:
    """The RFC 8785 text of a provenance: a mech's tools mostly share one.

    :param provenance: the provenance (immutable, hashable).
    :return: ``canonical_bytes(provenance.to_dict())`` as text, to splice.
    """
    return CanonicalText(canonical_bytes(provenance.to_dict()).decode("utf-8"))


def body_digest(mech: "Mech") -> str:
    """Return sha2-256 of the RFC 8785 form of what a mech's manifest decides.

    ``{"name", "description", "extra", "tools": [Tool.to_dict() without provenance],
    "problems", "spec_version", "withheld"}``. Registrations that share a manifest share
    this value, and it is computed once for all of them (a memo keyed by the values
    themselves, :data:`BODY_MEMO_ENTRIES` entries; a body of more than
    :data:`BODY_MEMO_CHARS` characters is not kept, so the memo holds at most
    :data:`BODY_MEMO_TOTAL`; hashing the key is C-speed, canonicalising is not).

    :param mech: the entry.
    :return: 64 lowercase hex characters.
    """
    return _body_digest_of(_body_key(mech))[0]


@dataclass(frozen=True, slots=True)
class Mech:  # pylint: disable=too-many-instance-attributes
    """One mech as the service sees it: where its hash lives, what it serves, how fresh.

    :param ref: registry kind, chain id, registry address, agent/service id.
    :param digest: on-chain bytes32 as ``0x`` + 64 lowercase hex ("" when none).
    :param cid: the CID the manifest was fetched under ("" when none).
    :param status: one of :data:`MECH_STATUSES`.
    :param name: manifest ``name``.
    :param description: manifest ``description``.
    :param extra_json: canonical JSON object of the other top-level manifest fields.
    :param tools: the mech's valid tools (empty unless status is ok).
    :param problems: errors and warnings for this mech's manifest.
    :param observed_block: block number at which the on-chain hash was read (None if not).
    :param spec_version: the manifest's declared ``specVersion`` ("" when unversioned).
    :param marketplace: the facts of each mech contract serving this service / agent
        (address order), read from the marketplace; empty when none were read. Serialised
        only when non-empty, so catalogues without marketplace data keep their digest.
    :param withheld: names of the manifest's tools withheld for an error-level problem
        (listed under the mech with their problems, never offered).
    """

    ref: MechRef
    digest: str = ""
    cid: str = ""
    status: str = STATUS_UNAVAILABLE
    name: str = ""
    description: str = ""
    extra_json: str = EMPTY_OBJECT_JSON
    tools: Tuple[Tool, ...] = ()
    problems: Tuple[Problem, ...] = ()
    observed_block: Optional[int] = None
    spec_version: str = ""
    marketplace: Tuple[MechFacts, ...] = ()
    withheld: Tuple[str, ...] = ()

    # sha2-256 of the entry bar its block, computed on first use (not a field: equality,
    # hashing, repr and pickling ignore it); :meth:`at_block` carries it over.
    _content_digest: str = field(init=False, repr=False, compare=False, default="")

    def __reduce__(self) -> Tuple[Any, Tuple[Any, ...]]:
        """Pickle and copy by the fields only (the cached digest is recomputed).

        :return: the constructor and its arguments.
        """
        return (
            Mech,
            (
                self.ref,
                self.digest,
                self.cid,
                self.status,
                self.name,
                self.description,
                self.extra_json,
                self.tools,
                self.problems,
                self.observed_block,
                self.spec_version,
                self.marketplace,
                self.withheld,
            ),
        )

    def content_digest(self) -> str:
        """Return sha2-256 of the entry's content document (RFC 8785), block excluded.

        The document is ``{"ref", "digest", "cid", "status", "provenance": [each tool's
        provenance], "marketplace"?: [...], "body": body digest}``; the body digest
        (:func:`body_digest`) covers everything the manifest decides (name, description,
        extra, tools without provenance, problems, spec version, withheld names) and is
        computed once per distinct body however many registrations share the manifest.
        Computed once per entry (the entry is immutable): a mech unchanged on chain is
        carried from period to period by :meth:`at_block`.

        :return: 64 lowercase hex characters.
        """
        if not self._content_digest:
            content: Dict[str, Any] = {
                "ref": self.ref.to_dict(),
                "digest": self.digest,
                "cid": self.cid,
                "status": self.status,
                "provenance": [_provenance_text(t.provenance) for t in self.tools],
                "body": body_digest(self),
            }
            if self.marketplace:
                content["marketplace"] = [f.to_dict() for f in self.marketplace]
            object.__setattr__(
                self, "_content_digest", sha256_hex(canonical_bytes(content))
            )
        return self._content_digest

    def at_block(self, observed_block: Optional[int]) -> "Mech":
        """Return this entry read again at another block (its cached digest kept).

        :param observed_block: the block of the new read.
        :return: an equal entry but for ``observed_block``.
        """
        moved = replace(self, observed_block=observed_block)
        object.__setattr__(moved, "_content_digest", self._content_digest)
        return moved

    @property
    def extra(self) -> Dict[str, Any]:
        """Return a fresh copy of the other top-level manifest fields.

        :return: a fresh copy of the other top-level manifest fields.
        """
        return decode(self.extra_json)

    @property
    def errors(self) -> Tuple[Problem, ...]:
        """Return the problems of severity error.

        :return: the problems of severity error.
        """
        return tuple(p for p in self.problems if p.is_error)

    @classmethod
    def from_manifest(  # pylint: disable=too-many-arguments
        cls,
        ref: MechRef,
        manifest: Optional[Manifest],
        problems: Tuple[Problem, ...] = (),
        digest: str = "",
        cid: str = "",
        observed_block: Optional[int] = None,
        status: Optional[str] = None,
    ) -> "Mech":
        """Tie a parse result to its mech, stamping provenance on every tool.

        :param ref: the mech.
        :param manifest: the parsed manifest, or None when it was rejected / not fetched.
        :param problems: the parse problems.
        :param digest: on-chain bytes32 0x-hex.
        :param cid: the CID fetched.
        :param observed_block: block of the hash read.
        :param status: override; default ok when manifest else invalid.
        :return: the mech (its problems deduplicated: a set, in first-seen order).
        """
        problems = unique_problems(problems)
        if manifest is None:
            return cls(
                ref=ref,
                digest=digest,
                cid=cid,
                status=status or STATUS_INVALID,
                problems=tuple(problems),
                observed_block=observed_block,
            )
        # one Provenance per shape, shared by the mech's tools (not one per tool)
        provenances: Dict[str, Provenance] = {}
        tools = tuple(
            t.with_provenance(
                provenances.get(t.provenance.shape)
                or provenances.setdefault(
                    t.provenance.shape, Provenance(t.provenance.shape, ref, cid, digest)
                )
            )
            for t in manifest.tools
        )
        return cls(
            ref=ref,
            digest=digest,
            cid=cid,
            status=status or STATUS_OK,
            name=manifest.name,
            description=manifest.description,
            extra_json=manifest.extra_json,
            tools=tools,
            problems=tuple(problems),
            observed_block=observed_block,
            spec_version=manifest.spec_version,
            withheld=tuple(t.name for t in manifest.withheld),
        )

    def to_dict(self) -> Dict[str, Any]:
        """Return a JSON-serialisable dict.

        :return: a JSON-serialisable dict (``withheld`` only when some tool is, so the
            digest of a catalogue without withheld tools is unchanged).
        """
        data: Dict[str, Any] = {
            "ref": self.ref.to_dict(),
            "digest": self.digest,
            "cid": self.cid,
            "status": self.status,
            "name": self.name,
            "description": self.description,
            "extra": self.extra,
            "tools": [t.to_dict() for t in self.tools],
            "problems": [p.to_dict() for p in self.problems],
            "observed_block": self.observed_block,
            "spec_version": self.spec_version,
        }
        if self.marketplace:
            data["marketplace"] = [facts.to_dict() for facts in self.marketplace]
        if self.withheld:
            data["withheld"] = list(self.withheld)
        return data

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Mech":
        """Return the mech.

        :param data: from :meth:`to_dict`.
        :return: the mech.
        """
        block = data.get("observed_block")
        return cls(
            ref=MechRef.from_dict(data["ref"]),
            digest=str(data.get("digest", "")),
            cid=str(data.get("cid", "")),
            status=str(data.get("status", STATUS_UNAVAILABLE)),
            name=str(data.get("name", "")),
            description=str(data.get("description", "")),
            extra_json=canonical_text(data.get("extra", {})),
            tools=tuple(Tool.from_dict(t) for t in data.get("tools", ())),
            problems=tuple(Problem.from_dict(p) for p in data.get("problems", ())),
            observed_block=None if block is None else int(block),
            spec_version=str(data.get("spec_version", "")),
            marketplace=tuple(
                MechFacts.from_dict(f) for f in data.get("marketplace", ())
            ),
            withheld=tuple(str(n) for n in data.get("withheld", ())),
        )


@dataclass(frozen=True, slots=True)
class ToolCollision:
    """The same tool name offered by more than one mech.

    :param name: the tool name.
    :param tools: each mech's tool (read ``tool.provenance.mech`` for which mech).
    """

    name: str
    tools: Tuple[Tool, ...]

    @property
    def mechs(self) -> Tuple[MechRef, ...]:
        """Return the mechs claiming the name, sorted.

        :return: the mechs claiming the name, sorted.
        """
        return tuple(sorted(t.provenance.mech for t in self.tools if t.provenance.mech))


@dataclass(frozen=True, slots=True)
class _CatalogueIndex:
    """Lookup tables of one catalogue, built with it; read-only mappings and tuples only.

    :param by_ref: mech ref -> mech.
    :param by_key: :attr:`MechRef.key` -> the first mech (ref order) with that key.
    :param by_name: tool name -> that tool from every offering mech (ref order).
    :param names: the distinct tool names, sorted.
    :param tools: every tool, mechs in ref order, tools in manifest order.
    """

    by_ref: Mapping[MechRef, "Mech"]
    by_key: Mapping[str, "Mech"]
    by_name: Mapping[str, Tuple[Tool, ...]]
    names: Tuple[str, ...]
    tools: Tuple[Tool, ...]

    @classmethod
    def of(cls, mechs: Tuple["Mech", ...]) -> "_CatalogueIndex":
        """Index mechs, O(mechs + tools).

        :param mechs: the catalogue's mechs, ref order.
        :return: the index.
        """
        by_key: Dict[str, Mech] = {}
        groups: Dict[str, List[Tool]] = {}
        for mech in mechs:
            by_key.setdefault(mech.ref.key, mech)
            for tool in mech.tools:
                groups.setdefault(tool.name, []).append(tool)
        return cls(
            by_ref=MappingProxyType({m.ref: m for m in mechs}),
            by_key=MappingProxyType(by_key),
            by_name=MappingProxyType({n: tuple(ts) for n, ts in groups.items()}),
            names=tuple(sorted(groups)),
            tools=tuple(t for m in mechs for t in m.tools),
        )


@dataclass(frozen=True, slots=True)
class Catalogue:
    """Every mech the service knows, with its tools. Immutable; build a new one to change.

    Deeply immutable: frozen slotted dataclasses, tuples, canonical JSON text and
    read-only mappings all the way down (no ``__dict__``, no list or dict reachable), so
    a consumer holding it cannot change it for anyone else.

    :param mechs: one entry per :class:`MechRef`, sorted by ref (use :meth:`build`).
    :param version: the serialisation version, :data:`MODEL_VERSION`.
    """

    mechs: Tuple[Mech, ...] = ()
    version: int = MODEL_VERSION
    # Built with the catalogue (not a serialised field: equality, hashing, to_dict and
    # the digest ignore it); the queries below answer from it in O(answer).
    _index: _CatalogueIndex = field(init=False, repr=False, compare=False)
    # The digest, computed on first use: a period asks for it several times (payload,
    # publication) and RFC 8785 canonicalisation costs seconds at 20,000 offers.
    _digest: str = field(init=False, repr=False, compare=False, default="")

    def __post_init__(self) -> None:
        """Freeze ``mechs`` into a tuple and build the lookup index."""
        if not isinstance(self.mechs, tuple):
            object.__setattr__(self, "mechs", tuple(self.mechs))
        object.__setattr__(self, "_index", _CatalogueIndex.of(self.mechs))

    def __reduce__(self) -> Tuple[Any, Tuple[Tuple[Mech, ...], int]]:
        """Pickle and copy by the fields only (the index is rebuilt).

        :return: the constructor and its arguments.
        """
        return (Catalogue, (self.mechs, self.version))

    @classmethod
    def build(cls, mechs: Iterable[Mech]) -> "Catalogue":
        """Sort mechs by ref; a later entry for the same ref replaces an earlier one.

        :param mechs: the mechs, any order.
        :return: the catalogue.
        """
        by_ref = {m.ref: m for m in mechs}
        return cls(mechs=tuple(by_ref[r] for r in sorted(by_ref)))

    # --- serialisation -----------------------------------------------------------
    def to_dict(self) -> Dict[str, Any]:
        """Return ``{"version": 1, "mechs": [...]}``, JSON-serialisable.

        :return: ``{"version": 1, "mechs": [...]}``, JSON-serialisable.
        """
        return {"version": self.version, "mechs": [m.to_dict() for m in self.mechs]}

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Catalogue":
        """Return the catalogue.

        :param data: from :meth:`to_dict`.
        :return: the catalogue.
        :raises ValueError: on an unknown version, or when ``data`` is not an object
            with a ``mechs`` array (``{"x": 1}`` is not an empty catalogue).
        """
        if not isinstance(data, dict) or not isinstance(data.get("mechs"), list):
            raise ValueError(
                'a serialised catalogue is a JSON object with a "mechs" array '
                f"(got {type(data).__name__}"
                + (f" with keys {sorted(data)[:5]}" if isinstance(data, dict) else "")
                + ")"
            )
        version = int(data.get("version", MODEL_VERSION))
        if version != MODEL_VERSION:
            raise ValueError(
                f"catalogue version {version} is not supported (expected {MODEL_VERSION})"
            )
        return cls.build(Mech.from_dict(m) for m in data.get("mechs", ()))

    def canonical_bytes(self) -> bytes:
        """Return rFC 8785 canonical bytes of :meth:`to_dict`.

        :return: RFC 8785 canonical bytes of :meth:`to_dict`.
        """
        return canonical_bytes(self.to_dict())

    def canonical_parts(self) -> Iterator[bytes]:
        """Yield :meth:`canonical_bytes` in pieces, one mech at a time (for writing files).

        RFC 8785 sorts keys (``"mechs"`` before ``"version"``) and writes an array as its
        items joined by commas, so the pieces joined are exactly :meth:`canonical_bytes`;
        only one mech's dict is alive at a time (the whole tree of 20,000 registrations,
        built at once, added about 120 MB to the agent's peak memory).

        :yield: byte pieces whose concatenation is :meth:`canonical_bytes`.
        """
        yield b'{"mechs":['
        for index, mech in enumerate(self.mechs):
            yield (b"," if index else b"") + canonical_bytes(mech.to_dict())
        yield b'],"version":' + canonical_bytes(self.version) + b"}"

    def to_json(self) -> str:
        """Return the canonical JSON text (same bytes on every agent).

        :return: the canonical JSON text (same bytes on every agent).
        """
        return self.canonical_bytes().decode("utf-8")

    @classmethod
    def from_json(cls, text: str) -> "Catalogue":
        """Return the catalogue.

        :param text: from :meth:`to_json`.
        :return: the catalogue.
        :raises ValueError: on bad JSON or shape.
        """
        try:
            return cls.from_dict(decode(text))
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(
                f"not a serialised catalogue: {type(exc).__name__} {exc}"
            ) from exc

    def digest(self) -> str:
        """Return the catalogue digest, identical on every agent for the same catalogue.

        Incremental by definition: sha2-256 of the RFC 8785 form of
        ``{"version": 1, "mechs": [[Mech.content_digest(), observed_block], ...]}``
        (mechs in ref order); :meth:`Mech.content_digest` documents the content document
        (identity, tool provenance, marketplace facts and the manifest body's digest). It changes exactly when
        :meth:`canonical_bytes` changes (sha2-256 collisions aside), and a period
        re-canonicalises only the mechs whose entry changed.

        :return: 64 lowercase hex characters.
        """
        if not self._digest:
            entries = [[m.content_digest(), m.observed_block] for m in self.mechs]
            document = {"version": self.version, "mechs": entries}
            object.__setattr__(self, "_digest", sha256_hex(canonical_bytes(document)))
        return self._digest

    # --- queries -----------------------------------------------------------------
    def mech(self, ref: MechRef) -> Optional[Mech]:
        """Return its entry, or None.

        :param ref: the mech.
        :return: its entry, or None.
        """
        return self._index.by_ref.get(ref)

    def mech_by_key(self, key: str) -> Optional[Mech]:
        """Return its entry, or None.

        :param key: a :attr:`MechRef.key`.
        :return: its entry, or None.
        """
        return self._index.by_key.get(key)

    def tools(self) -> Tuple[Tool, ...]:
        """Return every tool of every mech, mechs in ref order, tools in manifest order.

        :return: every tool of every mech, mechs in ref order, tools in manifest order.
        """
        return self._index.tools

    def tool_names(self) -> Tuple[str, ...]:
        """Return the distinct tool names, sorted.

        :return: the distinct tool names, sorted.
        """
        return self._index.names

    def tools_named(self, name: str) -> Tuple[Tool, ...]:
        """Return that tool from every mech offering it (ref order), in O(answer).

        :param name: a tool name.
        :return: that tool from every mech offering it (ref order).
        """
        return self._index.by_name.get(name, ())

    def tools_of(self, ref: MechRef) -> Tuple[Tool, ...]:
        """Return its tools (empty when unknown).

        :param ref: the mech.
        :return: its tools (empty when unknown).
        """
        entry = self.mech(ref)
        return () if entry is None else entry.tools

    def mechs_with_status(self, status: str) -> Tuple[Mech, ...]:
        """Return mechs with that status.

        :param status: one of MECH_STATUSES.
        :return: mechs with that status.
        """
        return tuple(m for m in self.mechs if m.status == status)

    def collisions(self) -> Tuple[ToolCollision, ...]:
        """Return tool names offered by two or more mechs, sorted by name.

        :return: tool names offered by two or more mechs, sorted by name.
        """
        by_name = self._index.by_name
        return tuple(
            ToolCollision(name, by_name[name])
            for name in self._index.names
            if len(by_name[name]) > 1
        )

    def errors(self) -> Tuple[Tuple[MechRef, Problem], ...]:
        """Return ``(mech, problem)`` for every error-severity problem, mechs in ref order.

        :return: ``(mech, problem)`` for every error-severity problem, mechs in ref order.
        """
        return tuple((m.ref, p) for m in self.mechs for p in m.problems if p.is_error)

    def problems(self) -> Tuple[Tuple[MechRef, Problem], ...]:
        """Return ``(mech, problem)`` for every problem, warnings included.

        :return: ``(mech, problem)`` for every problem, warnings included.
        """
        return tuple((m.ref, p) for m in self.mechs for p in m.problems)

    def stale(self, min_block: int) -> Tuple[Mech, ...]:
        """Mechs whose hash was last read before ``min_block`` (or never).

        :param min_block: the oldest acceptable block number.
        :return: the stale mechs, ref order.
        """
        return tuple(
            m
            for m in self.mechs
            if m.observed_block is None or m.observed_block < min_block
        )

    def freshness(self) -> Optional[int]:
        """Return the oldest ``observed_block`` over all mechs (None if any was never read or no mechs).

        :return: the oldest ``observed_block`` over all mechs (None if any was never read or no mechs).
        """
        blocks = [m.observed_block for m in self.mechs]
        if not blocks or any(b is None for b in blocks):
            return None
        return min(b for b in blocks if b is not None)
