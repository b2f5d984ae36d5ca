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

"""Where the MCP server's catalogue comes from, and what it serves of it.

Two sources, one shape (:class:`ServedCatalogue`):

- :class:`AgentSource`: a running agent's HTTP API (``GET /healthcheck`` for the agreed
  ``catalogue_digest``, ``GET /tools`` pages for the MCP Tools, ``GET /tools/<name>`` for
  each name's offers with their marketplace facts);
- :class:`DirectSource`: the registries and the MechMarketplace read here with the skill's
  own code (``sync_driver.CatalogueSync``, ``domain.chain.marketplace``).

Tools are the exporter's (``exporters.mcp_tool.offered_tool``: checked schemas, MCP name
rules, collisions), in the catalogue's name order; ``_meta["io.olas/mech-tool"]["offers"]``
lists every mech contract offering the name (:meth:`.offers.Offer.to_meta`). Their text
is cleaned and capped once more on arrival (``exporters.mcp_tool.mcp_tool_for_model``,
idempotent): an agent of another version, or a hostile one, cannot put hidden text in
front of the model. Its ``outputSchema`` also accepts decimal strings where it takes
integers (``exporters.js_integers``), and is listed inside the server's envelope (the
note, then the answer: ``answer_envelope``). A listed tool's description starts
with the server's own facts (:func:`listed_description`, composed from parts, never
parsed back); tools whose arguments ask for a secret, or whose definition still hides
text, are not listed (:meth:`ServedCatalogue.refusing_unsafe`).
"""

import json
import logging
import re
import urllib.parse
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import (
    Any,
    Dict,
    FrozenSet,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
)

from mech_catalogue_core.chain.marketplace import MarketplaceSource, attach_facts
from mech_catalogue_core.chain.registry import ChainReadError
from mech_catalogue_core.derive.from_chain import DerivationCache
from mech_catalogue_core.exporters.mcp_tool import META_KEY
from mech_catalogue_core.exporters.names import MCP_TOOL_RULE, export_names, is_reserved
from mech_catalogue_core.http_api.routes import (
    PAGE_MAX_BYTES,
)
from mech_catalogue_core.model.catalogue import Catalogue
from mech_catalogue_core.model.market import (
    MECH_KIND_LEGACY,
    MECH_KIND_MARKETPLACE,
    MechFacts,
)
from mech_catalogue_core.model.problems import ProblemCode
from mech_catalogue_core.model.quoted_text import quoted_lines
from mech_catalogue_core.model.tool import REGISTRY_KINDS, MechRef

from mech_catalogue_cli.adapters.http import AnswerError, get_json, watched_session
from mech_catalogue_cli.adapters.jsonrpc import JsonRpc, block_number
from mech_catalogue_cli.adapters.urls import redacted_url
from mech_catalogue_cli.code_source import derive_catalogue
from mech_catalogue_cli.marketplace_driver import MarketplaceReader
from mech_catalogue_cli.sync_driver import CatalogueSync, SyncConfig

from .checked_definitions import CHECKED
from .declarations import declarations, senior_names_first
from .node_words import agent_said, chain_read_said, node_said
from .offers import (
    NoOffer,
    Offer,
    Tenure,
    best_offers,
    choose_offer,
    price_words,
    schema_owners_first,
)
from .portable_schema import with_portable_output
from .readable_record import ReadableRecord
from .tenure import FetchedDefinitions, TenureReader
from .tenure_record import TenureRecord

LOGGER = logging.getLogger(__name__)

#: tools per ``tools/list`` page
DEFAULT_PAGE_SIZE = 50
#: bytes of one listed MCP Tool's own definition at most: its JSON without ``_meta``
#: (a typed ten-argument tool is about 3 KB); what other registrants add to ``_meta``
#: is bounded by :data:`MAX_META_OFFERS` and :data:`MAX_META_MECHS` instead
MAX_LISTED_TOOL_BYTES = 32 * 1024
#: offers one Tool's ``_meta`` lists at most (the best of the server's own ranking,
#: the chosen one always among them); a call still tries every offer. One offer is
#: about 880 bytes: 40 copies of a tool once pushed it over the 32 KiB cap (adv29v)
MAX_META_OFFERS = 8
#: mech keys each of ``_meta``'s ``mechs``, ``schema_mechs`` and ``conflicting_mechs``
#: names at most (about 70 bytes each)
MAX_META_MECHS = 16
#: the ``_meta`` lists other registrants lengthen; each has a ``<list>_left_out`` count
META_MECH_LISTS = ("mechs", "schema_mechs", "conflicting_mechs")
#: pages one ``/tools`` or ``/tools/<name>`` listing may take: an agent whose cursors never
#: end (or repeat) would otherwise keep the server paging for ever
MAX_AGENT_PAGES = 2000
#: bytes of an agent answer's envelope beside its items (keys, cursor, counts, the
#: healthcheck's fields), generously
AGENT_ENVELOPE_BYTES = 64 * 1024
#: bytes of one agent answer at most (2 MiB + 64 KiB). The agent's pages hold items of at
#: most ``PAGE_MAX_BYTES`` (``domain.http_api.routes``, 1 MiB) or a single larger item (a
#: tool out of a manifest of at most 1 MiB, ``max_manifest_bytes``); ``/tools/<name>``
#: adds the name's MCP Tool beside its offers page. Read whole, a 300 MiB answer held
#: about 1 GB of memory
MAX_AGENT_ANSWER_BYTES = 2 * PAGE_MAX_BYTES + AGENT_ENVELOPE_BYTES
#: JSON nesting of one agent answer at most: a manifest nests at most 64 levels
#: (``Limits.max_depth``) and the answer's envelope and inlined ``$defs`` add some; far
#: below the ~1,000 levels at which ``json.loads`` raised RecursionError (200,000 ``[``)
MAX_AGENT_ANSWER_DEPTH = 256
#: bytes of all the answers of one :meth:`AgentSource.read` at most (128 MiB): more than
#: twice what a catalogue of :data:`MAX_AGENT_TOOLS` typed tools needs (a name's MCP Tool
#: twice, its offers and facts: about 10 KB); pages and cursors alone (2,000 pages a
#: listing, a listing a name) let an agent send terabytes
MAX_AGENT_READ_BYTES = 128 * 1024 * 1024
#: tools one :meth:`AgentSource.read` keeps at most: each costs a ``/tools/<name>``
#: listing and is held in memory; a client's ``tools/list`` has no use for more
MAX_AGENT_TOOLS = 5000


#: what separates the server's facts from the mech's own description in a listed tool
#: (the description follows, every line quoted: ``quoted_text.quoted_lines``)
UNTRUSTED_HEADING = (
    'The mech\'s own description follows, every line of it quoted with "> " '
    "(untrusted text from its manifest; this server quotes none of its own words):"
)


#: the codes of the warnings a listed tool's ``_meta`` may carry
_PROBLEM_CODES = frozenset(code.value for code in ProblemCode)

#: the facts paragraph of a listed tool no call can pay now (``mcp --all-tools``)
UNPAYABLE_FACTS = (
    "Not payable now: no offer of this tool fits this server's settings (--max-price, "
    "--mech, --allow-mech) and payment types; calling it says why for each mech."
)


def cost_facts(offer: Offer) -> str:
    """The facts paragraph of a payable tool: that a call spends, how much, to whom.

    :param offer: the offer a call would pay now.
    :return: ``Paid call: <price> wei of the chain's native token to mech <address>
        ...``; a token's price in whole units, ``Paid call: 1.5 USDC (1500000 smallest
        units, ERC-20) to mech ...``.
    """
    return (
        f"Paid call: {price_words(offer.payment_type, offer.price)} to mech "
        f"{offer.address}, the offer chosen now (it may change with the catalogue)."
    )


def listed_description(facts: str, notes: Sequence[str], mech_text: str) -> str:
    """A listed tool's description, composed from its parts (never parsed back).

    The facts (from the chain and this server, never from a manifest) come first and the
    server's notes after them, so no manifest text (already cleaned and capped at 1,024
    characters) can precede them; the mech's text comes last, under
    :data:`UNTRUSTED_HEADING`, every line of it quoted
    (:func:`~mech_catalogue_core.model.quoted_text.quoted_lines`): its blank lines
    and paragraphs stay inside the quotation, so none reads as the server's after a
    forged end (adv29zt Z3; a text written in the server's forms is also flagged,
    ``untrusted_text.SERVER_FORM_PATTERNS``).

    :param facts: the server's facts paragraph (:func:`cost_facts`,
        :data:`UNPAYABLE_FACTS`).
    :param notes: the server's sentences about the tool (a look-alike name), one
        paragraph each.
    :param mech_text: the tool's description as exported (cleaned, capped).
    :return: the paragraphs, blank-line separated; the heading and the quoted text only
        when the tool has a description.
    """
    text = quoted_lines(mech_text.strip())
    paragraphs = [facts, *notes] + ([f"{UNTRUSTED_HEADING}\n{text}"] if text else [])
    return "\n\n".join(paragraph for paragraph in paragraphs if paragraph)


def described_with_cost(description: str, offer: Offer) -> str:
    """A payable tool's description: the server's facts first, then the mech's text.

    :param description: the tool's description as exported (cleaned, capped).
    :param offer: the offer a call would pay now.
    :return: :func:`listed_description` of :func:`cost_facts` and the text (the facts
        alone when the tool has no description).
    """
    return listed_description(cost_facts(offer), (), description)


#: an address as the chain gives it (``MechRef.from_dict`` and ``MechFacts.from_dict``
#: lowercase it)
_ADDRESS = re.compile(r"0x[0-9a-f]{40}")
#: a ``paymentType()`` (bytes32), or "" when it was not read
_PAYMENT_TYPE = re.compile(r"(0x[0-9a-fA-F]{64})?")


def facts_are_facts(ref: MechRef, facts: Optional[MechFacts] = None) -> bool:
    """Whether an agent's offer holds the chain's facts and nothing else (perf29c).

    An agent's ``GET /tools/<name>`` gives each offer's mech and marketplace facts as
    text; the server puts them before any manifest text (the price sentence names the
    mech contract, :func:`described_with_cost`) and in ``_meta`` (``offers``: the mech
    key, address, payment type), where a model reads them as the server's own. An agent
    of another version, or a hostile one, could put any text there (a sentence, tag
    characters, 20,000 characters): an offer whose values are not of the chain's shapes
    is left out.

    :param ref: the offer's mech.
    :param facts: one of its marketplace facts (None: the ref alone).
    :return: True when the registry kind is one of ``model.tool.REGISTRY_KINDS``, every
        address (registry, mech contract, factory, operator) ``0x`` and 40 hex digits
        (factory and operator may be empty), the payment type a bytes32 or empty, and
        the mech kind one of ``model.market``'s.
    """
    if ref.registry_kind not in REGISTRY_KINDS or not _ADDRESS.fullmatch(
        ref.registry_address
    ):
        return False
    if facts is None:
        return True
    return (
        bool(_ADDRESS.fullmatch(facts.address))
        and all(
            not value or bool(_ADDRESS.fullmatch(value.lower()))
            for value in (facts.mech_factory, facts.operator)
        )
        and bool(_PAYMENT_TYPE.fullmatch(facts.payment_type))
        and facts.kind in (MECH_KIND_MARKETPLACE, MECH_KIND_LEGACY)
    )


class SourceError(RuntimeError):
    """The catalogue source could not be read; the message names it and what to check."""


@dataclass(frozen=True)
class ServedTool:
    """One MCP tool: a tool name some mechs offer.

    :param name: the MCP name (unique, ``MCP_TOOL_RULE``: never a discovery tool's name).
    :param mech_tool: the tool name the mechs use (sent as the payload's ``tool``).
    :param tool: the MCP Tool JSON (camelCase, as on the wire).
    :param offers: every mech contract offering it.
    :param server_notes: the server's sentences about it (a look-alike name:
        ``names.flag_lookalikes``), placed after its facts by :func:`listed_description`.
    :param mech_description: the mech's own description once ``tool["description"]``
        is the server's composition (:meth:`ServedCatalogue.with_facts`); None while
        ``tool["description"]`` is the mech's own.
    :param answer_schema: the whole output schema answers are checked against (None: as listed).
    """

    name: str
    mech_tool: str
    tool: Dict[str, Any]
    offers: Tuple[Offer, ...]
    server_notes: Tuple[str, ...] = ()
    mech_description: Optional[str] = None
    answer_schema: Optional[Dict[str, Any]] = None

    def mech_text(self) -> str:
        """Return the mech's own description (cleaned, capped), without the server's words.

        :return: :attr:`mech_description`, or ``tool["description"]`` before the server
            composed it.
        """
        if self.mech_description is not None:
            return self.mech_description
        return str(self.tool.get("description") or "")

    def warnings(self) -> List[Dict[str, Any]]:
        """Return the warnings ``tools/list`` and ``describe_tool`` give of this tool.

        Every discovery surface shows a tool with these (a ``search_tools`` match too):
        its text's (``instruction_like_text``, ``invisible_text``, ``secret_argument``,
        ``secret_request``) and its name's (``lookalike_tool_name``).

        :return: ``_meta[META_KEY]["warnings"]`` entries ({code, message, ...}) whose
            code is a ``model.problems.ProblemCode``; [] when none.
        """
        meta = self.tool.get("_meta")
        ours = meta.get(META_KEY) if isinstance(meta, dict) else None
        found = ours.get("warnings") if isinstance(ours, dict) else None
        return [
            w
            for w in found or []
            if isinstance(w, dict) and w.get("code") in _PROBLEM_CODES
        ]


@dataclass(frozen=True)
class ServedCatalogue:
    """What ``tools/list`` serves for one catalogue.

    :param digest: the catalogue digest (the agreed one for an agent source).
    :param tools: the tools, in the catalogue's name order (stable between reads).
    """

    digest: str
    tools: Tuple[ServedTool, ...]

    def named(self, name: str) -> Optional[ServedTool]:
        """Return the tool with this MCP name, or one whose mech's name no MCP name can be.

        :param name: an MCP name, or a mech's name outside ``MCP_TOOL_RULE`` (adv29zu
            C4; a name the rule takes is only ever an MCP name, a held one reaches none).
        :return: the tool, or None.
        """
        for tool in self.tools:
            if tool.name == name:
                return tool
        if MCP_TOOL_RULE.accepts(name) or is_reserved(name):
            return None
        return next((tool for tool in self.tools if tool.mech_tool == name), None)

    def page(
        self, cursor: Optional[str], size: int = DEFAULT_PAGE_SIZE
    ) -> Tuple[Tuple[ServedTool, ...], Optional[str]]:
        """Return one ``tools/list`` page.

        The cursor is the decimal offset of the page's first tool, opaque to clients.

        :param cursor: the previous page's ``nextCursor`` (None: the first page).
        :param size: tools per page (>= 1).
        :return: the page and the next cursor (None on the last page).
        :raises ValueError: for a cursor that is not one this server issued for the
            current catalogue (not a number, or past the last tool).
        """
        offset = 0
        if cursor is not None:
            if not cursor.isdigit() or int(cursor) >= max(len(self.tools), 1):
                raise ValueError(
                    f"cursor {cursor!r} is not one this server issued for the current "
                    f"catalogue of {len(self.tools)} tools; list again without a cursor"
                )
            offset = int(cursor)
        page = self.tools[offset : offset + size]
        more = offset + size < len(self.tools)
        return page, (str(offset + size) if more else None)

    def payable_only(
        self,
        max_price: Optional[int] = None,
        pinned: str = "",
        allowed: Sequence[str] = (),
        token_max_price: Mapping[str, int] = MappingProxyType({}),
    ) -> "ServedCatalogue":
        """Keep the tools a call can pay for now, each saying what it costs.

        :meth:`with_facts` without the unpayable tools (``mcp`` without
        ``--all-tools``).

        :param max_price: the per-call cap in wei (None: none).
        :param pinned: ``--mech`` ("" for any).
        :param allowed: ``--allow-mech`` (empty for any).
        :param token_max_price: ``--max-price`` of token assets (asset -> smallest units).
        :return: the kept tools, same digest.
        """
        return self.with_facts(max_price, pinned, allowed, token_max_price)

    def with_facts(  # pylint: disable=too-many-arguments
        self,
        max_price: Optional[int] = None,
        pinned: str = "",
        allowed: Sequence[str] = (),
        token_max_price: Mapping[str, int] = MappingProxyType({}),
        keep_unpayable: bool = False,
    ) -> "ServedCatalogue":
        """Give every tool the server's facts first, its notes next, the mech's text last.

        A tool is payable when :func:`.offers.choose_offer` finds an offer under the same
        ``--max-price`` and ``--mech``; its description then starts with that offer's
        price and mech (:func:`cost_facts`), so a model reads that calling it spends
        funds and how much before any text of the manifest. Tools whose offers are all
        token-paid, legacy, unconfirmed, unpriced or over the cap go, or, with
        ``keep_unpayable`` (``mcp --all-tools``), start with :data:`UNPAYABLE_FACTS`
        (calling one says why it cannot be paid). The server's notes
        (:attr:`ServedTool.server_notes`) follow the facts whatever the mech wrote.

        :param max_price: the per-call cap in wei (None: none).
        :param pinned: ``--mech`` ("" for any).
        :param allowed: ``--allow-mech`` (empty for any).
        :param token_max_price: ``--max-price`` of token assets (asset -> smallest units).
        :param keep_unpayable: keep the tools no call can pay now.
        :return: the kept tools, each with ``mech_description`` set, same digest.
        """
        kept = []
        for tool in self.tools:
            try:
                offer = choose_offer(
                    tool.offers, max_price, pinned, allowed, token_max_price
                )
                facts, shown = cost_facts(offer), with_offer_listed(tool.tool, offer)
            except NoOffer:
                if not keep_unpayable:
                    continue
                facts, shown = UNPAYABLE_FACTS, tool.tool
            text = tool.mech_text()
            described = dict(
                shown,
                description=listed_description(facts, tool.server_notes, text),
            )
            kept.append(replace(tool, tool=described, mech_description=text))
        return ServedCatalogue(self.digest, tuple(kept))

    def refusing_unsafe(self) -> Tuple["ServedCatalogue", Tuple[str, ...]]:
        """Leave out the tools that ask for a secret, still hide text, or take a reserved name.

        :func:`.definition_checks.secret_refusal`, ``secret_request_refusal``,
        ``hidden_text_refusal``, ``withheld_refusal``, ``name_refusal`` (a name that
        orders a model) and ``reserved_refusal``:
        refused tools are not listed, so their text never reaches a model; a
        ``tools/call`` naming one is refused with the same sentence.

        :return: the kept tools (same digest), and the names left out.
        """
        kept: List[ServedTool] = []
        refused: List[str] = []
        for tool in self.tools:
            if CHECKED.refusal(tool.name, tool.tool, tool.mech_tool):
                refused.append(tool.name)
            else:
                kept.append(tool)
        return ServedCatalogue(self.digest, tuple(kept)), tuple(refused)

    def within_bytes(
        self, limit: int = MAX_LISTED_TOOL_BYTES
    ) -> Tuple["ServedCatalogue", Tuple[str, ...]]:
        """Keep the tools whose own definition is at most ``limit`` bytes.

        Every client's ``tools/list`` carries every listed tool into its model's context:
        one registrant's tool of 100 arguments with 10,000-character descriptions (about
        1 MB, 250,000 tokens) left a client no room for any tool. Measured:
        :func:`definition_bytes`, the Tool without ``_meta``; the offers and mechs
        other registrants add there are bounded on their own (:func:`_with_offers`),
        so copies of a tool cannot push it out of the listing (adv29v).

        :param limit: bytes of one Tool's definition at most.
        :return: the kept tools (same digest), and the names left out.
        """
        kept: List[ServedTool] = []
        left_out: List[ServedTool] = []
        for tool in self.tools:
            size = definition_bytes(tool.tool)
            (kept if size <= limit else left_out).append(tool)
        return ServedCatalogue(self.digest, tuple(kept)), tuple(
            t.name for t in left_out
        )


def payable_mechs(entry: Dict[str, Any]) -> FrozenSet[str]:
    """The catalogue entry keys a ``tools/call`` of this Tool may pay.

    ``tools/call`` validates against the served ``inputSchema`` (the first mech's, in
    ref order), so only mechs taking exactly those arguments may be paid; a mech that
    registered the name with other arguments (schema squatting, or an older free-text
    version) may not. Which mechs those are is the catalogue's one rule
    (``exporters.mcp_tool.same_signature``), published as ``schema_mechs`` in the Tool's
    ``_meta`` by ``offered_tool`` here and by the agent's ``/tools``.

    :param entry: the MCP Tool JSON served for the name.
    :return: the keys in its ``_meta[META_KEY]["schema_mechs"]`` (none when absent).
    """
    return frozenset(entry["_meta"][META_KEY].get("schema_mechs") or ())


def definition_bytes(tool: Mapping[str, Any]) -> int:
    """Bytes of a Tool's own definition: its compact UTF-8 JSON without ``_meta``.

    :param tool: an MCP Tool JSON.
    :return: the byte count ``tools/list``'s cap is checked against.
    """
    own = {key: value for key, value in tool.items() if key != "_meta"}
    return len(json.dumps(own, separators=(",", ":")).encode("utf-8"))


def _bounded_keys(keys: Sequence[str], first: Sequence[str]) -> List[str]:
    """At most :data:`MAX_META_MECHS` of ``keys``: those in ``first`` before the rest.

    :param keys: mech entry keys, in their listed order.
    :param first: the keys to keep before any other (the kept offers' mechs).
    :return: the kept keys, in their listed order.
    """
    chosen = set(first)
    ranked = [k for k in keys if k in chosen] + [k for k in keys if k not in chosen]
    kept = set(ranked[:MAX_META_MECHS])
    return [key for key in keys if key in kept]


def _with_offers(
    entry: Dict[str, Any],
    mech_tool: str,
    offers: Sequence[Offer],
    conflicting: Sequence[str] = (),
) -> ServedTool:
    """One served tool: every offer kept for calls, a bounded account in ``_meta``.

    ``_meta[META_KEY]``'s ``offers`` (:data:`MAX_META_OFFERS`, :func:`.offers.best_offers`)
    and ``mechs``, ``schema_mechs``, ``conflicting_mechs`` (:data:`MAX_META_MECHS` each,
    the listed offers' mechs first) are cut, each with ``<list>_left_out``: how many it
    does not name.

    :param entry: the exported MCP Tool JSON (cleaned for the model here).
    :param mech_tool: the tool name the mechs use.
    :param offers: every offer of the mechs taking the served arguments, served order.
    :param conflicting: entry keys of mechs declaring the name with other arguments.
    :return: the served tool (``offers`` whole: a call may try any of them); its
        ``server_notes`` say why when the mech's schema is not listed (adv29zz E1).
    """
    entry, whole, notes = with_portable_output(CHECKED.for_model(entry))
    meta = entry["_meta"][META_KEY]
    listed = best_offers(offers, MAX_META_OFFERS)
    meta["offers"] = [offer.to_meta() for offer in listed]
    meta["offers_left_out"] = len(offers) - len(listed)
    meta["conflicting_mechs"] = sorted(set(conflicting))  # schema_mechs' complement
    listed_mechs = [offer.mech_key for offer in listed]
    for field in META_MECH_LISTS:
        keys = [str(key) for key in meta.get(field) or ()]
        meta[field] = _bounded_keys(keys, listed_mechs)
        meta[f"{field}_left_out"] = len(keys) - len(meta[field])
    return ServedTool(
        entry["name"], mech_tool, entry, tuple(offers), notes, None, whole
    )


def with_offer_listed(tool: Dict[str, Any], offer: Offer) -> Dict[str, Any]:
    """The Tool with ``offer`` among its ``_meta`` offers (first when it was left out).

    :param tool: a served MCP Tool JSON (not changed).
    :param offer: the offer a call would pay (:func:`.offers.choose_offer`).
    :return: the Tool (a new dict when the offer had to be added; the last listed offer
        then makes room, counted in ``offers_left_out``).
    """
    meta = (tool.get("_meta") or {}).get(META_KEY) or {}
    said = offer.to_meta()
    if "offers" not in meta or said in meta["offers"]:
        return tool  # a Tool without the server's account, or the offer listed
    offers = [said] + list(meta["offers"])
    kept = offers[: max(MAX_META_OFFERS, 1)]
    left_out = max(
        0, int(meta.get("offers_left_out") or 0) + len(offers) - len(kept) - 1
    )
    listed = dict(meta, offers=kept, offers_left_out=left_out)
    return dict(tool, _meta=dict(tool["_meta"], **{META_KEY: listed}))


def served_from_catalogue(
    catalogue: Catalogue, tenures: Optional[Mapping[Tuple[str, str], Tenure]] = None
) -> ServedCatalogue:
    """Export a catalogue: one MCP tool per distinct tool name, with its offers.

    The served schema of a name is its senior offer's (:func:`.offers.schema_owners_first`:
    the earliest first delivery since the service's manifests have declared the tool
    as it is now, the same rule that ranks offers), not the lowest registry id's: a stranger
    registering a lower id, or re-declaring the name with other arguments, does not
    decide what the model sees. Only mechs taking the served arguments
    (:func:`payable_mechs`) are offers; the others are named in
    ``_meta[META_KEY]["conflicting_mechs"]`` and never paid. Names MCP cannot take as
    written are tagged (``exporters.names``) in order of seniority
    (:func:`.declarations.senior_names_first`): of two names sharing a tag, the senior tool's is
    given it, not the one sorting first (adversarial review adv29zt2).

    :param catalogue: a catalogue with marketplace facts attached (or none: no offers).
    :param tenures: (mech contract address, tool name) -> since when the mech offers
        that tool as it is now (:class:`.tenure.TenureReader`; None: unknown, the
        schema then goes by the other seniority facts).
    :return: the served catalogue, digest :meth:`Catalogue.digest`.
    """
    names = catalogue.tool_names()
    candidates_of = {name: declarations(catalogue, name, tenures) for name in names}
    exported = export_names(senior_names_first(candidates_of), MCP_TOOL_RULE)
    tools = []
    for name in names:
        ordered = schema_owners_first(candidates_of[name])
        entry = CHECKED.exported([tool for tool, _, _ in ordered], exported[name])
        payable = payable_mechs(entry)
        served: List[Offer] = []
        conflicting: List[str] = []
        for _, mech, offers in ordered:
            if mech is None:
                continue
            if mech.ref.key not in payable:
                conflicting.append(mech.ref.key)
                continue
            served.extend(offers)
        tools.append(_with_offers(entry, name, served, conflicting))
    return ServedCatalogue(catalogue.digest(), tuple(tools))


@dataclass(frozen=True)
class AgentBounds:
    """What one agent may cost the server (the defaults are the module's constants).

    :param answer_bytes: bytes of one answer at most.
    :param answer_depth: JSON nesting of one answer at most.
    :param read_bytes: bytes of all the answers of one read at most.
    :param tools: tools of one read at most.
    """

    answer_bytes: int = MAX_AGENT_ANSWER_BYTES
    answer_depth: int = MAX_AGENT_ANSWER_DEPTH
    read_bytes: int = MAX_AGENT_READ_BYTES
    tools: int = MAX_AGENT_TOOLS


#: what to check, by the kind of a refused answer (``adapters.http.AnswerError.kind``)
_ADVICE = {
    "status": "check that the agent runs and serves its HTTP API there",
    "transport": "check the URL and that the agent runs",
    "deadline": "check that the agent runs and answers promptly; it is asked again at "
    "the next poll",
}
_NOT_AGENT = "is it a mech-catalogue agent of this version?"


def _route(path: str) -> str:
    """Name an API route in a message: without its query, and without the tool's name.

    :param path: the path and query asked for.
    :return: ``/healthcheck``, ``/tools`` or ``/tools/<name>``.
    """
    route = path.split("?", 1)[0]
    return "/tools/<name>" if route.startswith("/tools/") else route


class AgentSource:
    """A running agent's HTTP API (docs/skill-contract.md, "HTTP API").

    Every answer is read within :class:`AgentBounds` and ``timeout`` (:mod:`mech_catalogue_cli.adapters.http`):
    whatever the agent sends, the only error is :class:`SourceError`, and no message
    carries the URL's path or query (they may hold an API key: ``keys.redacted_url``).

    The agent's API serves no tenure dates, so with a chain node (``tenure``) the offers'
    tenures are read here by the direct source's code (chain and manifests:
    :meth:`.tenure.TenureReader.tenures_of`): ranked as a direct read.
    """

    #: :meth:`digest` is one request: a poll reads the catalogue only when it changed
    digest_is_cheap = True

    def __init__(
        self,
        url: str,
        timeout: float = 10.0,
        bounds: AgentBounds = AgentBounds(),
        tenure: Optional[TenureReader] = None,
    ) -> None:
        """Point at an agent.

        :param url: its HTTP API base URL, e.g. ``http://127.0.0.1:8000``.
        :param timeout: seconds per request, all of it (connect, headers and body).
        :param bounds: the byte, depth and tool caps.
        :param tenure: reads the offers' tenures from the chain (None: no node given;
            offers then have none, and the ranking falls back to the other signals).
        """
        self.tenure = tenure
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.bounds = bounds
        self.session = watched_session()
        self._read_bytes = 0
        self.unlike_facts = 0  # offers of the last read left out by facts_are_facts

    @property
    def where(self) -> str:
        """Name the agent in a message.

        :return: ``--agent`` and the URL's scheme and host.
        """
        return f"--agent {redacted_url(self.url)}"

    def _get(self, path: str, ok: Tuple[int, ...] = (200,)) -> Any:
        try:
            answer, size = get_json(
                self.session,
                self.url + path,
                self.timeout,
                self.bounds.answer_bytes,
                self.bounds.answer_depth,
                ok,
            )
        except AnswerError as exc:
            raise SourceError(
                f"{self.where}: GET {_route(path)} {exc}; "
                f"{_ADVICE.get(exc.kind, _NOT_AGENT)}"
            ) from exc
        self._read_bytes += size
        if self._read_bytes > self.bounds.read_bytes:
            raise SourceError(
                f"{self.where}: one read of its catalogue took more than "
                f"{self.bounds.read_bytes} bytes; the catalogue was not read ("
                f"{_NOT_AGENT})"
            )
        return answer

    def _pages(self, path: str) -> Iterator[Dict[str, Any]]:
        """Yield every page of a cursor-paged listing, at most :data:`MAX_AGENT_PAGES`.

        :param path: ``/tools`` or ``/tools/<name>``.
        :yield: each page (a JSON object).
        :raises SourceError: for a page that is not an object, a cursor seen before, or
            more pages than the cap.
        """
        cursor: Optional[str] = None
        seen = set()
        for _ in range(MAX_AGENT_PAGES):
            query = "" if cursor is None else "?cursor=" + urllib.parse.quote(cursor)
            page = self._get(path + query)
            if not isinstance(page, dict):
                raise SourceError(
                    f"{self.where}: GET {_route(path)} answered "
                    f"{type(page).__name__}, not a JSON object; {_NOT_AGENT}"
                )
            yield page
            cursor = page.get("nextCursor")
            if not cursor:
                return
            if not isinstance(cursor, str) or cursor in seen:
                raise SourceError(
                    f"{self.where}: GET {_route(path)} repeats or garbles its "
                    "nextCursor; the catalogue was not read"
                )
            seen.add(cursor)
        raise SourceError(
            f"{self.where}: GET {_route(path)} has more than {MAX_AGENT_PAGES} pages; "
            "the catalogue was not read"
        )

    def _offers(self, mech_tool: str) -> List[Dict[str, Any]]:
        """Read every page of ``GET /tools/<name>``'s offers."""
        path = "/tools/" + urllib.parse.quote(mech_tool, safe="")
        return [o for page in self._pages(path) for o in page.get("offers", [])]

    def digest(self) -> str:
        """Return the agreed catalogue's digest, empty before the first agreement.

        :return: the digest (``SourceError`` when the agent cannot be read).
        """
        body = self._get("/healthcheck", ok=(200, 503))
        return str(body.get("catalogue_digest", "")) if isinstance(body, dict) else ""

    def read(self) -> ServedCatalogue:
        """Read every ``/tools`` page and each name's offers.

        Whatever the agent answers, the only error is :class:`SourceError`: an answer of
        another shape (a tool without ``_meta``, an offer whose ``mech`` is not a ref)
        stopped the server before. All its answers together are at most
        ``bounds.read_bytes``, and it keeps at most ``bounds.tools`` tools.

        :return: the served catalogue.
        :raises SourceError: when the agent cannot be read, or answers another shape.
        """
        self._read_bytes = 0
        try:
            return self._read()
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise SourceError(
                f"{self.where}: its catalogue has an unexpected shape "
                f"({type(exc).__name__}, {agent_said(str(exc), self.url)}); is it a "
                "mech-catalogue agent of this version?"
            ) from exc

    def _read(self) -> ServedCatalogue:
        self.unlike_facts = 0
        digest = self.digest()
        if not digest:  # no catalogue agreed yet: the agent's lists answer 503
            return ServedCatalogue("", ())
        read: List[
            Tuple[Dict[str, Any], str, List[Tuple[MechRef, MechFacts, str]], List[str]]
        ]
        read = []
        for page in self._pages("/tools"):
            for entry in page.get("tools", []):
                if len(read) >= self.bounds.tools:
                    raise SourceError(
                        f"{self.where}: its catalogue has more than "
                        f"{self.bounds.tools} tools; the catalogue was not read"
                    )
                # the MCP name is the mech's own unless mechToolName says otherwise
                mech_tool = str(
                    entry["_meta"][META_KEY].get("mechToolName") or entry["name"]
                )
                payable = payable_mechs(entry)
                offered: List[Tuple[MechRef, MechFacts, str]] = []
                conflicting: List[str] = []
                for offer in self._offers(mech_tool):
                    if not offer.get("mech"):
                        continue
                    ref = MechRef.from_dict(offer["mech"])
                    facts = [
                        MechFacts.from_dict(f) for f in offer.get("marketplace", [])
                    ]
                    if not all(facts_are_facts(ref, f) for f in facts) or not (
                        facts_are_facts(ref)
                    ):
                        self.unlike_facts += 1
                        continue
                    if ref.key not in payable:
                        conflicting.append(ref.key)
                        continue
                    offered.extend((ref, f, mech_tool) for f in facts)
                read.append((entry, mech_tool, offered, conflicting))
        if self.unlike_facts:
            LOGGER.warning(
                "%s: %d offers left out: their mech or facts are not the chain's "
                "(an address, a registry kind, a payment type of another shape)",
                self.where,
                self.unlike_facts,
            )
        tenures = self._tenures([o for _, _, offered, _ in read for o in offered])
        tools = [
            _with_offers(
                entry,
                mech_tool,
                [
                    Offer.from_facts(ref.key, f, tenures.get((f.address.lower(), name)))
                    for ref, f, name in offered
                ],
                conflicting,
            )
            for entry, mech_tool, offered, conflicting in read
        ]
        return ServedCatalogue(digest, tuple(tools))

    def _tenures(
        self, offers: List[Tuple[MechRef, MechFacts, str]]
    ) -> Dict[Tuple[str, str], Tenure]:
        """The offers' tenures read from the chain ({} without a node).

        :param offers: the offers: (ref, facts, mech tool name).
        :return: (mech contract address, mech tool name) -> tenure.
        :raises SourceError: when the chain cannot be read (the last catalogue is kept:
            a ranking without tenures could be bought).
        """
        if self.tenure is None:
            return {}
        try:
            return self.tenure.tenures_of(offers, block_number(self.tenure.rpc))
        except (ChainReadError, ValueError) as exc:  # ValueError: a malformed log
            raise SourceError(
                f"{self.where}: the offers' tenures could not be read from the chain "
                f"({node_said(exc, self.tenure.rpc.url, 160)}); the catalogue was kept"
            ) from exc


class DirectSource:
    """The registries and the MechMarketplace, read here as the skill reads them."""

    def __init__(
        self,
        config: SyncConfig,
        marketplace: Optional[MarketplaceSource],
        state_dir: Optional[Path] = None,
    ) -> None:
        """Prepare the readers.

        :param config: the registries, RPC, gateway and Multicall2.
        :param marketplace: the chain's MechMarketplace (None: no offers, nothing payable).
        :param state_dir: ``--state-dir``: a restart reads on where the last process ended
            (:class:`.readable_record.ReadableRecord`, :mod:`.tenure_record`); None: no.
        """
        self.config = config
        self.marketplace = marketplace
        self.sync = CatalogueSync(config)
        self.readable = ReadableRecord(state_dir)
        self.sync.readable = self.readable.load()
        self.market = (
            MarketplaceReader(config, marketplace, self.sync.session)
            if marketplace is not None
            else None
        )
        self.history = FetchedDefinitions(config)
        self.tenure = TenureReader(
            JsonRpc(config.rpc_url, config.rpc_timeout, self.sync.session),
            marketplace.first_block if marketplace is not None else 0,
            self.history,
            record=TenureRecord(state_dir),
        )
        self._tenures: Dict[Tuple[str, str], Tenure] = {}
        # code_uri derivations by package CID, kept while the catalogue points at them
        self.derivations = DerivationCache()

    def _facts(self) -> List[MechFacts]:
        return self.market.facts() if self.market is not None else []

    def read(self) -> ServedCatalogue:
        """Run one period of the skill's reading code, then read the marketplace facts.

        :return: :func:`served_from_catalogue` of :meth:`catalogue`, with the tenure
            of each mech read up to the same head.
        """
        catalogue = self.catalogue()
        return served_from_catalogue(catalogue, self._tenures)

    def catalogue(self) -> Catalogue:
        """Run one period of the skill's reading code, then read the marketplace facts.

        :return: the catalogue, marketplace facts attached.
        :raises SourceError: when the registries or the marketplace cannot be read.
        """
        outcome = self.sync.period()
        self.readable.save(self.sync.readable)
        if outcome.catalogue is None:
            raise SourceError(
                f"cannot read the registries through "
                f"{redacted_url(self.config.rpc_url)}: "
                + chain_read_said(outcome.error or "no catalogue", self.config.rpc_url)
            )
        try:
            facts = self._facts()
            head = block_number(
                JsonRpc(self.config.rpc_url, self.config.rpc_timeout, self.sync.session)
            )
            with_facts = attach_facts(outcome.catalogue, facts)
            self.history.begin_read()  # one fetch budget for the walks of this read
            self._tenures = (
                self.tenure.tenures(with_facts, head) if self.market is not None else {}
            )
        except (ChainReadError, ValueError) as exc:  # ValueError: a malformed log
            raise SourceError(
                f"cannot read the MechMarketplace through "
                f"{redacted_url(self.config.rpc_url)} "
                f"({node_said(exc, self.config.rpc_url)})"
            ) from exc
        catalogue, unread = derive_catalogue(
            outcome.catalogue,
            self.config.rpc_url,
            self.config.multicall,
            self.config.gateway_url,
            self.config.fetch_timeout,
            head,
            self.derivations,
        )
        for sentence in unread:
            LOGGER.warning("%s", sentence)
        return attach_facts(catalogue, facts)

    digest_is_cheap = False

    def digest(self) -> str:
        """Read everything again and return the catalogue digest: no cheaper probe exists.

        :return: the catalogue digest.
        """
        return self.read().digest

    def close(self) -> None:
        """Release the fetch pools."""
        self.sync.close()
        self.history.close()
