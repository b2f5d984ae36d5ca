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

"""``mech-catalogue search QUERY``: find tools in a catalogue by words and filters.

The catalogue is read as ``list`` reads it (the same options: registries, Multicall2,
marketplace, gateways; ``--chain NAME`` or ``--devnet``), or from a file of
``list --json`` (``--from``). The query engine is the library's
(``mech_catalogue_core.search``): BM25 over tool names, kinds, descriptions and
arguments, the agent's ``GET /tools?q=`` answers from the same engine. Exit 0 with the
matches (none is not an error), 1 when the catalogue cannot be read, 2 on a bad command
line (an invalid filter or cursor included, naming it).
"""

from pathlib import Path
from types import MappingProxyType
from typing import Any, Dict, List, Mapping, Optional, Tuple

import click
from mech_catalogue_core.catalogue.lookalikes import lookalike_problems
from mech_catalogue_core.chain.presets import ChainPreset
from mech_catalogue_core.model.catalogue import Catalogue
from mech_catalogue_core.model.market import PAYMENT_TYPE_NAMES
from mech_catalogue_core.model.payees import payees_withheld
from mech_catalogue_core.model.payment import (
    KNOWN_TERMS,
    AssetAmountError,
    asset_terms,
    parse_price_limit,
)
from mech_catalogue_core.model.problems import Problem
from mech_catalogue_core.model.quoted_text import reasons_for_model
from mech_catalogue_core.model.tool import REGISTRY_KINDS
from mech_catalogue_core.model.untrusted_text import for_person, prose_for_model
from mech_catalogue_core.model.vocabulary import SearchSort
from mech_catalogue_core.search.index import (
    InvalidCursor,
    SearchHit,
    SearchIndex,
    SearchPage,
)
from mech_catalogue_core.search.query import (
    DEFAULT_PAGE_SIZE,
    MAX_BLOCK,
    MAX_KARMA,
    MAX_PAGE_SIZE,
    MAX_PRICE_CAP,
    InvalidQuery,
    SearchQuery,
)
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from ..chain_options import PresetCommand, chain_options
from ..devnet_options import USES_CHAIN_READS, DevnetSettings, devnet_options
from ..mcp_server.checked_definitions import CHECKED
from ..output import CliFailure, Output, print_problem, print_wrapped, untrusted
from .list_cmd import read_catalogue, source_options
from .options import WideIntRange

#: the error code when ``--from`` cannot be read as a catalogue
CATALOGUE_UNREADABLE = "catalogue_unreadable"
#: payment type name -> the asset its prices are in (``native``, ``olas``, ``usdc``...)
ASSET_OF_PAYMENT = {terms.name: terms.asset for terms in KNOWN_TERMS}
#: characters of a description shown in the table (``--json`` carries it whole)
TABLE_DESCRIPTION_CHARS = 80


def load_catalogue(path: Path) -> Catalogue:
    """Read a catalogue from ``list --json`` output (or any serialised catalogue).

    :param path: the file.
    :return: the catalogue.
    :raises CliFailure: (exit 1, ``catalogue_unreadable``) when the file cannot be read
        or is not a serialised catalogue.
    """
    if not path.is_file():
        raise CliFailure(
            CATALOGUE_UNREADABLE,
            f"there is no file {path}; write one with "
            "`mech-catalogue list --json > FILE`",
        )
    try:
        return Catalogue.from_json(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise CliFailure(
            CATALOGUE_UNREADABLE,
            f"{path} is not a catalogue ({exc}); write one with "
            "`mech-catalogue list --json > FILE`",
        ) from exc


def catalogue_to_search(  # pylint: disable=too-many-arguments
    ctx: click.Context,
    out: Output,
    from_file: Optional[Path],
    source: Dict[str, Any],
    devnet: Optional[DevnetSettings],
    preset: Optional[ChainPreset],
) -> Catalogue:
    """Read the catalogue a command works on: ``--from`` a file, else the chain.

    :param ctx: the click context.
    :param out: where a failure is reported.
    :param from_file: ``--from`` (None: read the chain as ``list`` does).
    :param source: :func:`.list_cmd.source_options`' values.
    :param devnet: the running devnet, or None.
    :param preset: the ``--chain`` preset, or None.
    :return: the catalogue; a file that is not one exits 1 (``catalogue_unreadable``),
        the chain's failures exit as ``list``'s do.
    """
    if from_file is None:
        return read_catalogue(ctx, out, source, devnet, preset)[0]
    try:
        catalogue = load_catalogue(from_file)
    except CliFailure as failure:
        out.fail(failure)
    return catalogue


def hit_json(
    hit: SearchHit, lookalikes: Mapping[str, Problem] = MappingProxyType({})
) -> Dict[str, Any]:
    """Return one match as ``--json`` prints it.

    :param hit: the match.
    :param lookalikes: tool name -> its look-alike warning
        (``catalogue.lookalikes.lookalike_problems`` of the catalogue's names).
    :return: ``{"tool", "kind", "mech", "score", "price", "payments", "callable",
        "delivering", "karma", "last_delivery_block", "typed", "description"}``: the
        price in the payment's smallest unit as decimal text (null: no callable
        contract; none asked: in ``payments[0]``), the karma and the latest delivery's
        block as decimal text (null: none read), texts cleaned as every exporter shows them
        (``model.untrusted_text``); and ``warnings`` ([{code, message}]) when it has
        any (:func:`hit_problems`).
    """
    found = {
        "tool": hit.tool.name,
        "kind": hit.tool.kind,
        "mech": hit.mech.ref.key,
        "score": hit.score,
        "price": None if hit.price is None else str(hit.price),
        "payments": list(hit.payments),
        "callable": hit.callable_now,
        "delivering": hit.delivering,
        "karma": None if hit.karma is None else str(hit.karma),
        "last_delivery_block": (
            None if hit.last_delivery_block is None else str(hit.last_delivery_block)
        ),
        "typed": hit.tool.is_typed,
        "description": prose_for_model(hit.tool.description),
    }
    problems = hit_problems(hit, lookalikes)
    if problems:
        found["warnings"] = reasons_for_model([p.to_dict() for p in problems])
    return found


def hit_problems(
    hit: SearchHit, lookalikes: Mapping[str, Problem] = MappingProxyType({})
) -> List[Problem]:
    """Return the warnings a match is shown with, as the MCP server lists the tool.

    A match's description is all a model driving ``search --json`` may read of a tool
    before paying for it: it carries what ``tools/list`` carries (adv29w). (The
    terminal's table prints the look-alike warning only.)

    :param hit: a match.
    :param lookalikes: tool name -> its look-alike warning.
    :return: the tool's text warnings (``untrusted_text.tool_text_problems``:
        ``invisible_text``, ``instruction_like_text``, ``secret_argument``,
        ``secret_request``; read through
        the MCP server's cache of definition checks,
        :meth:`.checked_definitions.CheckedDefinitions.text_problems`), then its
        name's ``lookalike_tool_name``; [] when none.
    """
    problems = list(CHECKED.text_problems(hit.tool))
    lookalike = lookalikes.get(hit.tool.name)
    return problems + ([lookalike] if lookalike is not None else [])


def page_json(
    query: SearchQuery,
    page: SearchPage,
    lookalikes: Mapping[str, Problem] = MappingProxyType({}),
) -> Dict[str, Any]:
    """Return a page as ``--json`` prints it.

    :param query: the query asked.
    :param page: its page.
    :param lookalikes: tool name -> its look-alike warning (:func:`hit_json`).
    :return: ``{"query", "total", "next_cursor", "matches": [hit_json]}``.
    """
    return {
        "query": query.text,
        "total": page.total,
        "next_cursor": page.next_cursor,
        "matches": [hit_json(hit, lookalikes) for hit in page.hits],
    }


#: the table's columns, their facts' names in the one-fact-a-line layout
SEARCH_COLUMNS = (
    "tool",
    "kind",
    "mech",
    "score",
    "price",
    "payment",
    "karma",
    "description",
)
#: columns that are never wrapped: a person copies a mech key and compares prices
WHOLE_COLUMNS = frozenset({"mech", "price"})
#: columns whose text a manifest wrote (the rest are the chain's facts and ours)
MANIFEST_COLUMNS = frozenset({"tool", "kind", "description"})
#: columns enough for any table here, to measure its narrowest layout (characters)
UNBOUNDED_WIDTH = 100_000


def _page_rows(page: SearchPage) -> List[Tuple[Text, ...]]:
    """Each hit's cells, in :data:`SEARCH_COLUMNS`' order, as plain text (never markup).

    :param page: the page.
    :return: one tuple of :class:`rich.text.Text` per hit; the description cut at
        :data:`TABLE_DESCRIPTION_CHARS` characters (ending ``…``).
    """
    rows: List[Tuple[Text, ...]] = []
    for hit in page.hits:
        description = for_person(payees_withheld(hit.tool.description))
        if len(description) > TABLE_DESCRIPTION_CHARS:
            description = description[: TABLE_DESCRIPTION_CHARS - 1] + "…"
        rows.append(
            (
                untrusted(hit.tool.name, label=True),
                untrusted(hit.tool.kind, label=True),
                Text(hit.mech.ref.key),
                Text(f"{hit.score:.4f}"),
                Text("-" if hit.price is None else str(hit.price)),
                Text(",".join(hit.payments) or "-"),
                Text("-" if hit.karma is None else str(hit.karma)),
                Text(description),
            )
        )
    return rows


def render_page(
    page: SearchPage,
    console: Console,
    lookalikes: Mapping[str, Problem] = MappingProxyType({}),
) -> None:
    """Draw a page; every manifest text shown as plain text, never markup.

    A table when its mech keys and prices fit whole, each on one line (the other columns
    wrap), as rich measures the table at its narrowest; else, on a narrow terminal, each
    match's tool name and then its facts one a line, never cropped (adversarial review
    adv29e: cropped to fit, two prices tenfold apart read alike); a row longer than the
    terminal, or a description's line break, continues on a marked row
    (``output.print_wrapped``, adversarial review adv29f: a description's lines read as
    a price and a match that were not the chain's).

    :param page: the page.
    :param console: where to draw.
    :param lookalikes: tool name -> its look-alike warning, printed under the table.
    """
    title = (
        f"{page.total} {'match' if page.total == 1 else 'matches'} (price: per "
        "request, in the payment's smallest unit)"
    )
    rows = _page_rows(page)
    table = Table(title=title)
    for column in SEARCH_COLUMNS:
        table.add_column(column, overflow="fold", no_wrap=column in WHOLE_COLUMNS)
    for row in rows:
        table.add_row(*row)
    unbounded = console.options.update_width(UNBOUNDED_WIDTH)
    if Measurement.get(console, unbounded, table).minimum <= console.width:
        console.print(table)
    else:
        console.print(Text(title))
        for row in rows:
            print_wrapped(console, "", row[0])
            for name, value in zip(SEARCH_COLUMNS[1:], row[1:]):
                if name in MANIFEST_COLUMNS:
                    print_wrapped(console, f"  {name}: ", value, indent="  ")
                else:  # ours, whole on one line: the terminal wraps a long one
                    console.print(
                        Text(f"  {name}: ") + value, crop=False, soft_wrap=True
                    )
    for name in dict.fromkeys(hit.tool.name for hit in page.hits):
        if name in lookalikes:
            print_problem(console, lookalikes[name])
    if page.next_cursor:
        console.print(Text(f"more: --cursor {page.next_cursor}"))


def run_search(
    catalogue: Catalogue, query: SearchQuery, cursor: Optional[str], distinct: bool
) -> SearchPage:
    """Build the index and answer one page.

    :param catalogue: the catalogue.
    :param query: the query.
    :param cursor: ``--cursor`` (None: the first page).
    :param distinct: one match per tool name.
    :return: the page.
    :raises BadParameter: (exit 2) when the cursor was not issued for this query and
        catalogue.
    """
    try:
        return SearchIndex.build(catalogue).search(query, cursor, distinct)
    except InvalidCursor as exc:
        raise click.BadParameter(str(exc), param_hint="--cursor") from exc


def price_limit(
    value: Optional[str], payment: Optional[str]
) -> Tuple[Optional[int], Optional[str]]:
    """Read ``--max-price``: smallest units of ``--payment``, or an amount and its asset.

    ``"1.5usdc"`` / ``"1.5 usdc"`` / ``"0.01 native"`` / ``"5000 wei"`` are read by the
    parser MCP ``search_tools`` uses (``model.payment.parse_price_limit``: whole units
    of the asset, a fraction of a smallest unit dropped) and set the payment type to the
    asset's fixed-price one (``token_usdc``...); a bare integer is in the smallest unit
    of ``--payment`` (wei for native), as before.

    :param value: ``--max-price`` as typed (None: no cap).
    :param payment: ``--payment`` (None: any).
    :return: the cap in smallest units and the payment type name to filter on.
    :raises BadParameter: (exit 2) for a value that is no amount of a known asset, or an
        asset other than ``--payment``'s.
    """
    if value is None or value.strip().isdigit():
        return (None if value is None else int(value)), payment
    try:
        asset, most = parse_price_limit(value)
    except AssetAmountError as exc:
        raise click.BadParameter(str(exc), param_hint="--max-price") from exc
    terms = asset_terms(asset)
    name = "" if terms is None else terms.name
    if payment and ASSET_OF_PAYMENT.get(payment) != asset:
        raise click.BadParameter(
            f"{value!r} is an amount of {asset}, but --payment {payment} is paid in "
            f"{ASSET_OF_PAYMENT.get(payment) or 'another asset'}: amounts of two assets "
            "do not compare",
            param_hint="--max-price",
        )
    return min(most, MAX_PRICE_CAP), payment or name


def _query(filters: Dict[str, Any]) -> SearchQuery:
    """Build the query from the options; a value the engine refuses is a usage error."""
    try:
        return SearchQuery(**filters)
    except InvalidQuery as exc:
        raise click.UsageError(str(exc)) from exc


@click.command(
    name="search",
    cls=PresetCommand,
    help="Find tools by words and filters, ranked by relevance (BM25 over tool names, "
    "kinds, descriptions and arguments), price or karma. The catalogue is read as `list` "
    "reads it, or from a `list --json` file (--from).\n\nExit codes: 0 answered (no "
    "match included), 1 the catalogue could not be read, 2 usage error.",
    epilog="\b\nExamples:\n"
    "  mech-catalogue search 'image generation' --chain gnosis\n"
    "  mech-catalogue search prediction --from catalogue.json --max-price 10000000000000000 --payment native\n"
    "  mech-catalogue search '' --from catalogue.json --kind image --sort price --json",
)
@click.argument("text", metavar="QUERY")
@click.option(
    "--from",
    "from_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Search this catalogue (`mech-catalogue list --json > FILE`) instead of "
    "reading the chain.",
)
@click.option(
    "--kind", default="", help="Only tools of this kind (prediction, image...)."
)
@click.option(
    "--max-price",
    help="Only offers whose price (lowest maxDeliveryRate of the mech's callable "
    "contracts) is at most this: an amount with its asset ('1.5usdc', '0.01 native', "
    "'2 olas', '5000 wei'; sets --payment to that asset's), or an integer in the "
    "smallest unit of --payment (wei for native).",
)
@click.option(
    "--payment",
    type=click.Choice(sorted(set(PAYMENT_TYPE_NAMES.values()))),
    help="Only offers payable this way (priced in that asset).",
)
@click.option(
    "--mech",
    default="",
    help="Only this mech: a catalogue entry key or a mech contract address.",
    metavar="ADDRESS|KEY",
)
@click.option(
    "--registry-kind",
    type=click.Choice(REGISTRY_KINDS),
    help="Only mechs read from this kind of registry.",
)
@click.option(
    "--typed/--untyped",
    default=None,
    help="Only tools with (or without) typed arguments.",
)
@click.option(
    "--callable", "callable_now", is_flag=True, help="Only offers payable now."
)
@click.option(
    "--delivering", is_flag=True, help="Only mechs that have delivered a request."
)
@click.option(
    "--min-karma",
    type=WideIntRange(-MAX_KARMA, MAX_KARMA),
    help="Only mechs whose karma was read and is at least this (karma counts "
    "deliveries and can be bought by wash trading).",
)
@click.option(
    "--delivered-within",
    type=WideIntRange(0, MAX_BLOCK),
    help="Only mechs whose latest marketplace delivery is at most this many blocks "
    "before the block their facts were read at (blocks, as every agent reads them).",
)
@click.option(
    "--sort",
    type=click.Choice([order.value for order in SearchSort]),
    default=SearchSort.RELEVANCE.value,
    show_default=True,
    help="Order: relevance, price (cheapest first, unpriced last; with no --payment "
    "grouped by payment type, amounts of two assets never compared), karma (highest "
    "first, unread last; karma can be bought by wash trading, relevance never uses it) "
    "or recent (latest delivery first, none known last).",
)
@click.option(
    "--limit",
    type=click.IntRange(1, MAX_PAGE_SIZE),
    default=DEFAULT_PAGE_SIZE,
    show_default=True,
    help="Matches per page.",
)
@click.option("--cursor", help="Continue from a previous page's cursor.")
@click.option(
    "--distinct",
    is_flag=True,
    help="One match per tool name (its best offer), as GET /tools?q= answers.",
)
@source_options
@click.option("--json", "as_json", is_flag=True, help="Print the matches as JSON.")
@click.pass_context
@chain_options
@devnet_options(USES_CHAIN_READS)
def search(  # pylint: disable=too-many-arguments,too-many-locals
    ctx: click.Context,
    *,
    text: str,
    from_file: Optional[Path],
    kind: str,
    max_price: Optional[str],
    payment: Optional[str],
    mech: str,
    registry_kind: Optional[str],
    typed: Optional[bool],
    callable_now: bool,
    delivering: bool,
    min_karma: Optional[int],
    delivered_within: Optional[int],
    sort: str,
    limit: int,
    cursor: Optional[str],
    distinct: bool,
    devnet: Optional[DevnetSettings],
    preset: Optional[ChainPreset],
    as_json: bool,
    **source: Any,
) -> None:
    """Find tools by words and filters.

    :param ctx: the click context.
    :param text: QUERY.
    :param from_file: ``--from``.
    :param kind: ``--kind``.
    :param max_price: ``--max-price``.
    :param payment: ``--payment``.
    :param mech: ``--mech``.
    :param registry_kind: ``--registry-kind``.
    :param typed: ``--typed/--untyped``.
    :param callable_now: ``--callable``.
    :param delivering: ``--delivering``.
    :param min_karma: ``--min-karma``.
    :param delivered_within: ``--delivered-within``.
    :param sort: ``--sort``.
    :param limit: ``--limit``.
    :param cursor: ``--cursor``.
    :param distinct: ``--distinct``.
    :param devnet: the running devnet, or None.
    :param preset: the ``--chain`` preset, or None.
    :param as_json: ``--json``.
    :param source: :func:`.list_cmd.source_options`' values.
    """
    out = Output(as_json or bool((ctx.obj or {}).get("json")))
    cap, payment = price_limit(max_price, payment)
    query = _query(
        {
            "text": text,
            "kind": kind,
            "payment": payment or "",
            "max_price": cap,
            "mech": mech,
            "registry": registry_kind or "",
            "typed": typed,
            "callable_now": callable_now,
            "delivering": delivering,
            "min_karma": min_karma,
            "delivered_within": delivered_within,
            "sort": SearchSort(sort),
            "page_size": limit,
        }
    )
    catalogue = catalogue_to_search(ctx, out, from_file, source, devnet, preset)
    page = run_search(catalogue, query, cursor, distinct)
    lookalikes = lookalike_problems(sorted(catalogue.tool_names()))
    out.emit(
        page_json(query, page, lookalikes),
        lambda console: render_page(page, console, lookalikes),
    )
