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

"""``mech-catalogue prepay``: show prepaid balances, or deposit into a balance tracker.

Like mech-client's ``mechx deposit native|token``, but: the tracker is the marketplace's
for the payment type (``mapPaymentTypeBalanceTrackers``, not a per-chain configuration),
amounts are whole units with the token's own decimals (``--amount 1.5`` USDC), nothing
is sent without ``--yes`` (the default is a dry run saying what would be), ``--max-amount``
caps a deposit (required with ``--yes`` off the devnet), a token approval is exactly the
amount, and a rerun never deposits twice (``mcp_server.prepay``'s journal). The MCP
server has no tool that prepays: a model can never move funds into a tracker.
"""

import os
from pathlib import Path
from typing import Any, Dict, Optional

import click
from mech_catalogue_core.chain.presets import ChainPreset
from mech_catalogue_core.model.payment import (
    KNOWN_TERMS,
    AssetAmountError,
    parse_units,
)
from mech_catalogue_core.model.vocabulary import PaymentStatus, PaymentWay
from web3 import Web3

from mech_catalogue_cli.mcp_server.market import MarketError, Marketplace
from mech_catalogue_cli.mcp_server.prepay import Prepayer

from ..chain_options import PresetCommand, chain_options, chain_settings
from ..devnet_options import USES_PREPAY, DevnetSettings, devnet_options
from ..folders import DEFAULTS
from ..keys import load_key
from ..output import CliFailure, Output
from ..redaction import register_urls
from .gas_options import choose_tip, chosen_max_fee_per_gas, gas_options
from .mcp_cmd import DEVNET_REQUESTER_ROLE, KEY_ENV
from .publish_cmd import DEFAULT_RPC, RPC_ENV

#: the fixed-price payment type of each asset a deposit can go to
_DEPOSIT_TYPES = {
    t.asset: t.payment_type
    for t in KNOWN_TERMS
    if t.way in (PaymentWay.NATIVE, PaymentWay.TOKEN)
}
_MECH_TYPE_ABI = [
    {
        "type": "function",
        "name": "paymentType",
        "stateMutability": "view",
        "inputs": [],
        "outputs": [{"type": "bytes32", "name": ""}],
    }
]


def _payment_type(
    market: Marketplace, asset: Optional[str], payment_type: str, mech: str
) -> str:
    """The payment type to deposit for: ``--asset``, ``--payment-type`` or ``--mech``'s."""
    if sum(map(bool, (asset, payment_type, mech))) != 1:
        raise click.UsageError("give exactly one of --asset, --payment-type, --mech")
    if asset:
        return _DEPOSIT_TYPES[asset]
    if payment_type:
        return payment_type.lower()
    try:
        contract = market.w3.eth.contract(
            address=Web3.to_checksum_address(mech), abi=_MECH_TYPE_ABI
        )
        return "0x" + bytes(contract.functions.paymentType().call()).hex()
    except Exception as exc:  # pylint: disable=broad-exception-caught
        raise CliFailure(
            "mech_unreadable",
            f"mech {mech}: its paymentType() could not be read ({type(exc).__name__})",
        ) from exc


def _render_balances(rows: Any, requester: str, marketplace: str) -> Any:
    def render(console: Any) -> None:
        console.print(
            f"prepaid balances of account {requester} "
            f"(MechMarketplace {marketplace}):",
            highlight=False,
        )
        for row in rows:
            if "error" in row:
                console.print(f"{row['type_name']}: {row['error']}")
                continue
            line = f"{row['type_name']} (tracker {row['tracker']}): prepaid "
            if "credits" in row:
                line += (
                    f"{row['prepaid_units']}, {row['credits']} credits of plan "
                    f"{row['plan']}"
                )
            else:
                line += f"{row['prepaid_units']}, wallet {row['wallet_units']}"
            if row["token"]:
                line += f", allowance {row['allowance_units']}"
            console.print(line, highlight=False)

    return render


@click.command(
    name="prepay",
    cls=PresetCommand,
    help="Show this account's prepaid balances per balance tracker (--show), or deposit "
    "into the tracker of a payment type so that later requests are paid from it "
    "(no approval per call; a native request then sends no value). A dry run unless "
    "--yes.",
    epilog="\b\nExamples:\n"
    "  mech-catalogue prepay --chain devnet --show\n"
    "  mech-catalogue prepay --chain devnet --asset usdc --amount 1.5\n"
    "  mech-catalogue prepay --chain gnosis --asset olas --amount 10 --max-amount 10 "
    "--yes --key-file requester.key",
)
@click.option(
    "--rpc",
    default=lambda: os.environ.get(RPC_ENV, DEFAULT_RPC),
    show_default=f"${RPC_ENV} or {DEFAULT_RPC}",
    help="Chain JSON-RPC URL.",
    metavar="URL",
)
@click.option(
    "--marketplace",
    help="MechMarketplace address (its trackers are used).",
    metavar="ADDRESS",
)
@click.option(
    "--key-file",
    type=click.Path(dir_okay=False),
    help=f"File with the paying account's hex key (else ${KEY_ENV}; with --devnet, "
    "the devnet test account the MCP server pays from). Never logged or returned.",
)
@click.option("--show", is_flag=True, help="Only list the balances per tracker.")
@click.option(
    "--asset",
    type=click.Choice(sorted(_DEPOSIT_TYPES)),
    help="Deposit for the fixed-price mechs of this asset.",
)
@click.option("--payment-type", default="", help="Deposit for this paymentType().")
@click.option(
    "--mech",
    default="",
    help="Deposit for this mech's paymentType().",
    metavar="ADDRESS",
)
@click.option("--amount", help="Whole units of the asset (1.5 = 1.5 USDC).")
@click.option(
    "--max-amount",
    help="Refuse a deposit above this many whole units (required with --yes off the "
    "devnet).",
)
@click.option("--yes", is_flag=True, help="Send the deposit (default: a dry run).")
@click.option(
    "--idempotency-key",
    default="",
    help="Another deposit of the same amount: a rerun with the same key never "
    "deposits twice.",
)
@click.option(
    "--state-dir",
    default=str(DEFAULTS.mcp),
    show_default=True,
    help="Folder whose prepay/ journals deposits (the MCP server's by default).",
    metavar="DIRECTORY",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON document on stdout.")
@gas_options
@click.pass_context
@chain_options
@devnet_options(USES_PREPAY)
def prepay(  # pylint: disable=too-many-arguments,too-many-locals
    ctx: click.Context,
    *,
    rpc: str,
    marketplace: Optional[str],
    key_file: Optional[str],
    show: bool,
    asset: Optional[str],
    payment_type: str,
    mech: str,
    amount: Optional[str],
    max_amount: Optional[str],
    yes: bool,
    idempotency_key: str,
    state_dir: str,
    max_gas: int,
    max_fee_per_gas: Optional[int],
    priority_fee_per_gas: Optional[int],
    devnet: Optional[DevnetSettings],
    preset: Optional[ChainPreset],
    as_json: bool,
) -> None:
    """Show balances, or deposit (see the command help and docs/mcp.md).

    A refused or failed deposit exits 1 naming why.

    :param ctx: the click context.
    :param rpc: ``--rpc``.
    :param marketplace: ``--marketplace``.
    :param key_file: ``--key-file``.
    :param show: ``--show``.
    :param asset: ``--asset``.
    :param payment_type: ``--payment-type``.
    :param mech: ``--mech``.
    :param amount: ``--amount``.
    :param max_amount: ``--max-amount``.
    :param yes: ``--yes``.
    :param idempotency_key: ``--idempotency-key``.
    :param state_dir: ``--state-dir``.
    :param max_gas: ``--max-gas``: the most gas the deposit (or approval) may use.
    :param max_fee_per_gas: ``--max-fee-per-gas``, wei (None: the chain's default,
        :func:`.gas_options.chosen_max_fee_per_gas`).
    :param priority_fee_per_gas: ``--priority-fee-per-gas``, wei (None: the chain's
        least tip, or the node's suggestion: :func:`.gas_options.choose_tip`).
    :param devnet: the running devnet, or None.
    :param preset: the ``--chain`` preset, or None.
    :param as_json: ``--json``.
    :raises UsageError: (exit 2) no key or marketplace, none or several of ``--asset``,
        ``--payment-type``, ``--mech``, no ``--amount``, or ``--yes`` off the devnet
        without ``--max-amount``.
    :raises BadParameter: (exit 2) an amount finer than the asset's decimals.
    """
    out = Output(as_json or bool((ctx.obj or {}).get("json")))
    try:
        chosen = chain_settings(
            {"rpc": rpc, "marketplace": marketplace}, devnet, preset
        )
        register_urls(chosen["rpc"])
        devnet_key = (
            str(devnet.info.accounts[DEVNET_REQUESTER_ROLE]["private_key"])
            if devnet is not None
            else ""
        )
        key = load_key(key_file, KEY_ENV, devnet_key)
        if not key or not chosen.get("marketplace"):
            raise click.UsageError("prepay needs a key and --marketplace (or --chain)")
        market = Marketplace(
            chosen["rpc"],
            chosen["marketplace"],
            key,
            gas_bounds=(max_gas, chosen_max_fee_per_gas(max_fee_per_gas, preset)),
        )
        choose_tip(market, priority_fee_per_gas, preset, devnet is not None)
        prepayer = Prepayer(market, Path(state_dir))
        if show:
            rows = prepayer.balances()
            out.emit(
                {"requester": market.requester, "trackers": rows},
                _render_balances(rows, market.requester, chosen["marketplace"]),
            )
            return
        if not amount:
            raise click.UsageError("give --amount (whole units), or --show")
        kind = _payment_type(market, asset, payment_type, mech)
        funds = prepayer.payer.funds(kind)
        try:
            units = parse_units(amount, funds.decimals)
        except AssetAmountError as exc:
            raise click.BadParameter(str(exc), param_hint="'--amount'") from None
        try:
            cap = parse_units(max_amount, funds.decimals) if max_amount else None
        except AssetAmountError as exc:
            raise click.BadParameter(str(exc), param_hint="'--max-amount'") from None
        if yes and cap is None and devnet is None:
            raise click.UsageError("--yes off the devnet needs --max-amount")
        _run(out, prepayer, kind, units, cap, yes, idempotency_key)
    except MarketError as exc:
        out.fail(CliFailure("prepay_failed", str(exc)))
    except CliFailure as failure:
        out.fail(failure)


def _run(  # pylint: disable=too-many-arguments
    out: Output,
    prepayer: Prepayer,
    kind: str,
    units: int,
    cap: Optional[int],
    yes: bool,
    idempotency: str,
) -> None:
    """Dry run (the decision and unsigned transactions) or the deposit itself."""
    decided = prepayer.plan(kind, units, cap)
    if decided.status not in (PaymentStatus.PAYABLE, PaymentStatus.NEEDS_APPROVAL):
        raise CliFailure("prepay_refused", f"{decided.reason}; nothing was deposited")
    if not yes:
        body: Dict[str, Any] = {
            "dry_run": True,
            "deposit": decided.to_dict(),
            "transactions": [
                {**t, "value": str(t["value"])} for t in prepayer.transactions(decided)
            ],
        }
        out.emit(
            body,
            lambda console: console.print(
                f"dry run: would deposit {body['deposit']['amount_units']} from "
                f"account {prepayer.market.requester} into "
                f"{decided.funds.tracker} ({len(body['transactions'])} "
                "transaction(s)); nothing was sent. Add --yes to send.",
                highlight=False,
            ),
        )
        return
    done = prepayer.deposit(kind, units, cap, idempotency)
    out.emit(
        done,
        lambda console: console.print(
            f"{done['status']}: {done['deposit']['amount_units']} into "
            f"{done['deposit']['tracker']} (tx {done['tx_hash']}); prepaid "
            f"{done['prepaid_before']} -> {done['prepaid_after']} smallest units",
            highlight=False,
        ),
    )
