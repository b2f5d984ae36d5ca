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

"""``list``'s output: the mechs and tools table, the marketplace table and ``--json``.

Pure formatting of a :class:`Catalogue` and the marketplace's :class:`MechFacts` (read by
:mod:`.list_read`); nothing here reads the chain or IPFS.
"""

import json
from typing import Dict, List, Optional, Sequence, Tuple

from mech_catalogue_core.chain.registry import (
    IDS_ALL,
    RegistrySource,
)
from mech_catalogue_core.model.canonical import canonical_text
from mech_catalogue_core.model.catalogue import (
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.market import (
    MECH_KIND_LEGACY,
    UNREAD_NOT_APPLICABLE,
    MechFacts,
)
from mech_catalogue_core.model.payment import plan_payment
from mech_catalogue_core.model.tool import (
    Tool,
)
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from ..output import print_problem, untrusted


def _arguments(tool: Tool) -> str:
    return (
        ", ".join(
            f"{a.identifier}{'' if a.required else '?'}: {a.type}"
            for a in tool.arguments
        )
        or f"prompt: str (free {tool.input_type or 'text'})"
    )


def empty_registries(
    catalogue: Catalogue, sources: Tuple[RegistrySource, ...]
) -> List[RegistrySource]:
    """Return the registries read that hold no mech (among the ids asked for).

    :param catalogue: the catalogue read.
    :param sources: the registries read.
    :return: those without a single mech in the catalogue, in order.
    """
    read = {(m.ref.registry_kind, m.ref.registry_address) for m in catalogue.mechs}
    return [s for s in sources if (s.kind, s.address) not in read]


def say_empty(empty: List[RegistrySource], console: Console) -> None:
    """Name each registry that holds no mech, and what to do (stderr).

    :param empty: from :func:`empty_registries`.
    :param console: stderr.
    """
    for source in empty:
        console.print(
            f"note: {source.kind} at {source.address} holds no mechs"
            + ("" if source.ids.mode == IDS_ALL else " among the ids asked for")
            + " (nothing registered yet: `publish` sets a mech's manifest once it "
            "exists; on the devnet, `make devnet-up` seeds mechs).",
            markup=False,
        )


def render_catalogue(catalogue: Catalogue, with_tools: bool, console: Console) -> None:
    """Print the mechs table, then each mech's tools (``--tools``) and problems.

    :param catalogue: the catalogue.
    :param with_tools: ``--tools/--mechs-only``.
    :param console: stdout.
    """
    table = Table(title="mechs")
    for column in ("registry", "id", "status", "tools", "name"):
        table.add_column(column, overflow="fold")  # a narrow terminal: folded, not cut
    for mech in catalogue.mechs:
        table.add_row(
            mech.ref.registry_kind,
            str(mech.ref.mech_id),
            mech.status,
            str(len(mech.tools)),
            untrusted(mech.name, label=True),
        )
    console.print(table)
    for mech in catalogue.mechs:
        _render_mech(mech, with_tools, console)


def _entries(catalogue: Catalogue) -> Dict[str, str]:
    """Return mech contract address -> the catalogue entry its facts are attached to."""
    return {
        facts.address: f"{mech.ref.registry_kind} #{mech.ref.mech_id}"
        for mech in catalogue.mechs
        for facts in mech.marketplace
    }


def _number(facts: MechFacts, name: str) -> str:
    value = getattr(facts, name)
    if value is not None:
        return str(value)
    return "n/a" if dict(facts.unread).get(name) == UNREAD_NOT_APPLICABLE else "unread"


def _payment(facts: MechFacts) -> str:
    """The payment column: the type's name and, when priced, the price in whole units."""
    name = facts.payment_name
    if facts.kind == MECH_KIND_LEGACY:
        return name
    units = plan_payment(facts.payment_type, facts.max_delivery_rate).to_dict()[
        "price_units"
    ]
    return f"{name} ({units})" if units else name


#: the marketplace table's columns, after ``mech address``; the narrow layout's fact names
MARKET_COLUMNS: Tuple[str, ...] = (
    "service",
    "payment",
    "price",
    "karma",
    "requests",
    "deliveries",
    "liveness",
    "confirmed",
    "manifest",
)
#: columns enough for any table here, to measure its natural width (characters)
UNBOUNDED_WIDTH = 100_000
#: the narrowest console for the two-column layout: a 42-character address, a facts
#: column of about 24 and the borders
NARROW_TABLE_WIDTH = 74
MARKET_TITLE = "marketplace mechs (price: per request, in the payment's smallest unit)"


def render_market(
    facts: Sequence[MechFacts], catalogue: Catalogue, console: Console
) -> None:
    """Print the marketplace mechs table (price per request in the payment's smallest unit).

    One column a fact when the table fits the console whole; else (a terminal of 80
    columns) two columns, the address and the facts one a line; narrower than
    :data:`NARROW_TABLE_WIDTH`, no table. An address is never cut: a person copies it to
    pay or to look the mech up.

    :param facts: every mech the MechMarketplace created.
    :param catalogue: the catalogue, to name the entry each mech's facts belong to.
    :param console: stdout.
    """
    entries = _entries(catalogue)
    rows = [
        (
            fact.address,
            _number(fact, "service_id"),
            _payment(fact),
            _number(fact, "max_delivery_rate"),
            _number(fact, "karma"),
            _number(fact, "requests"),
            _number(fact, "deliveries"),
            str(fact.liveness),
            "yes" if fact.confirmed else "no",
            entries.get(fact.address, "(none)"),
        )
        for fact in facts
    ]
    wide = Table("mech address", *MARKET_COLUMNS, title=MARKET_TITLE)
    for row in rows:
        wide.add_row(*row)
    unbounded = console.options.update_width(UNBOUNDED_WIDTH)
    if Measurement.get(console, unbounded, wide).maximum <= console.width:
        console.print(wide)
        return
    lines = [
        [f"{name}: {value}" for name, value in zip(MARKET_COLUMNS, values)]
        for _, *values in rows
    ]
    if console.width >= NARROW_TABLE_WIDTH:
        narrow = Table(title=MARKET_TITLE, show_lines=True)
        narrow.add_column("mech address", no_wrap=True)
        narrow.add_column("facts")
        for row, facts_lines in zip(rows, lines):
            narrow.add_row(row[0], "\n".join(facts_lines))
        console.print(narrow)
        return
    console.print(MARKET_TITLE, markup=False)
    for row, facts_lines in zip(rows, lines):  # no table: the address on its own line
        console.print(row[0], markup=False, crop=False, soft_wrap=True)
        for line in facts_lines:
            console.print("  " + line, markup=False)


def list_json(catalogue: Catalogue, facts: Optional[Sequence[MechFacts]]) -> str:
    """Return ``--json``'s text: the catalogue JSON, and every marketplace mech when read.

    :param catalogue: the catalogue (facts attached to the entries they belong to).
    :param facts: every mech contract the MechMarketplace created, or None (not read).
    :return: canonical JSON (RFC 8785): the catalogue's, plus ``marketplace_mechs``: each
        mech's facts (``MechFacts.to_dict``) with its ``liveness``, the catalogue
        ``entry`` its facts are attached to (null: its service has no manifest) and
        ``payment`` (``model.payment.Payment.to_dict``: way, asset, price in units).
    """
    if facts is None:
        return catalogue.to_json()
    body = json.loads(catalogue.to_json())
    entries = _entries(catalogue)
    body["marketplace_mechs"] = [
        {
            **f.to_dict(),
            "liveness": str(f.liveness),
            "entry": entries.get(f.address),
            "payment": plan_payment(f.payment_type, f.max_delivery_rate).to_dict(),
        }
        for f in facts
    ]
    return canonical_text(body)


def _render_mech(mech: Mech, with_tools: bool, console: Console) -> None:
    label = f"{mech.ref.registry_kind} #{mech.ref.mech_id}"
    if with_tools and mech.tools:
        table = Table(
            "tool",
            "arguments",
            title=Text(f"{label}: ") + untrusted(mech.name, label=True),
        )
        for tool in mech.tools:
            table.add_row(untrusted(tool.name, label=True), untrusted(_arguments(tool)))
        console.print(table)
    if mech.problems:
        console.print(f"{label} ({mech.status}):", markup=False)
        for problem in mech.problems:
            print_problem(console, problem)
