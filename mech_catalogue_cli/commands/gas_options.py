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


"""``--max-gas``, ``--max-fee-per-gas``, ``--priority-fee-per-gas``: a transaction's gas.

Every command that signs takes the fee options (:func:`fee_options`): ``mcp`` and
``prepay`` (:meth:`mech_catalogue_cli.mcp_server.market.Marketplace.sign`, which take
``--max-gas`` too: :func:`gas_options`) and ``publish``
(:meth:`mech_catalogue_cli.publisher.publisher.Publisher.send`); the fees signed are
:func:`mech_catalogue_cli.fee_caps.fees_to_sign`'s.
"""

import re
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional

import click
from mech_catalogue_core.chain.presets import (
    DEFAULT_MAX_FEE_PER_GAS,
    DEFAULT_MIN_PRIORITY_FEE_PER_GAS,
    GWEI,
    ChainPreset,
)

from mech_catalogue_cli.fee_caps import TipChoice, say_gwei
from mech_catalogue_cli.mcp_server.market_errors import DEFAULT_MAX_GAS

if TYPE_CHECKING:  # web3 and the server: not for `--help`
    from mech_catalogue_cli.mcp_server.market import Marketplace

#: the units a fee per gas may be written in, and their wei
FEE_UNITS = {"": 1, "wei": 1, "gwei": GWEI}
#: a number, then a unit (letters) if any
_AMOUNT_AND_UNIT = re.compile(
    r"(?P<number>[-+]?[0-9_.]+(?:[eE][-+]?[0-9_]+)?)\s*(?P<unit>[a-zA-Z]*)"
)


def _amount(value: str, least: int, units: Dict[str, int]) -> Optional[int]:
    """A whole number of the smallest unit, or None when ``value`` is none.

    :param value: as typed: ``1000000``, ``1e6``, ``1_000_000``, and with ``units``
        a unit after it (``25gwei``, ``0.5 gwei``).
    :param least: the least accepted.
    :param units: each unit's name (lower case) to its size ("": none written).
    :return: the amount in the smallest unit (under 2**256, as every EVM quantity).
    """
    parts = _AMOUNT_AND_UNIT.fullmatch(value.strip())
    if parts is None or parts["unit"].lower() not in units:
        return None
    try:
        number = (
            Decimal(parts["number"].replace("_", "")) * units[parts["unit"].lower()]
        )
    except ArithmeticError:  # InvalidOperation, Overflow
        return None
    if not least <= number < 2**256 or number != number.to_integral_value():
        return None
    return int(number)


def _whole_number(
    ctx: click.Context, param: click.Parameter, value: Optional[str]
) -> Optional[int]:
    """Read a positive whole number, written plainly or as ``2e9`` (None: not given)."""
    if value is None:
        return None
    number = _amount(value, 1, {"": 1})
    if number is None:
        raise click.BadParameter(
            f"{value!r} is no positive whole number (e.g. 1000000 or 1e6)", ctx, param
        )
    return number


def _fee_per_gas(
    ctx: click.Context, param: click.Parameter, value: Optional[str]
) -> Optional[int]:
    """Read wei per gas: ``100000000000``, ``1e11``, ``100gwei``, ``0.5 gwei``.

    :param ctx: the click context.
    :param param: ``--max-fee-per-gas`` (1 wei at least) or ``--priority-fee-per-gas``
        (0 at least).
    :param value: as typed (None: not given).
    :return: wei per gas, or None when not given.
    :raises BadParameter: when it is no whole number of wei at least the least, or
        its unit is not wei or gwei.
    """
    if value is None:
        return None
    least = 0 if param.name == "priority_fee_per_gas" else 1
    number = _amount(value, least, FEE_UNITS)
    if number is None:
        raise click.BadParameter(
            f"{value!r} is no whole number of wei of at least {least} (e.g. 1e9, "
            "1000000000 or 1gwei; units: wei, gwei)",
            ctx,
            param,
        )
    return number


def chosen_max_fee_per_gas(flag: Optional[int], preset: Optional[ChainPreset]) -> int:
    """The ``--max-fee-per-gas`` in use: typed, else the chain's default.

    :param flag: ``--max-fee-per-gas`` (None: not typed).
    :param preset: the ``--chain`` preset (None: the devnet, or a custom ``--rpc``).
    :return: wei per gas: the flag, else the preset's ``max_fee_per_gas`` (source
        ``fee_cap`` in :mod:`mech_catalogue_core.chain.presets`), else
        ``DEFAULT_MAX_FEE_PER_GAS`` (100 gwei).
    """
    if flag is not None:
        return flag
    return preset.max_fee_per_gas if preset is not None else DEFAULT_MAX_FEE_PER_GAS


def chosen_min_priority_fee(preset: Optional[ChainPreset]) -> int:
    """The tip every transaction is signed with: the least the chain's nodes take.

    :param preset: the ``--chain`` preset (None: the devnet, or a custom ``--rpc``).
    :return: wei per gas: the preset's ``min_priority_fee_wei`` (sources ``bor_tip``,
        ``geth_tip``, ``arbitrum_tip`` in :mod:`mech_catalogue_core.chain.presets`),
        else ``DEFAULT_MIN_PRIORITY_FEE_PER_GAS`` (0).
    """
    if preset is None:
        return DEFAULT_MIN_PRIORITY_FEE_PER_GAS
    return preset.min_priority_fee_wei


def tip_choice(
    typed: Optional[int], preset: Optional[ChainPreset], devnet: bool
) -> TipChoice:
    """The tip a command signs with: typed, else the chain's least, else the node's.

    :param typed: ``--priority-fee-per-gas`` (None: not typed), wei per gas.
    :param preset: the ``--chain`` preset (None: the devnet, or a custom ``--rpc``).
    :param devnet: whether the chain is the devnet (its tip: 0).
    :return: the choice (:class:`mech_catalogue_cli.fee_caps.TipChoice`): the node's
        ``eth_maxPriorityFeePerGas`` is asked only with nothing typed, no preset and
        not the devnet (a custom ``--rpc``).
    """
    return TipChoice(
        least=chosen_min_priority_fee(preset),
        typed=typed,
        from_node=typed is None and preset is None and not devnet,
    )


def choose_tip(
    market: "Marketplace",
    typed: Optional[int],
    preset: Optional[ChainPreset],
    devnet: bool,
) -> None:
    """Set the tip ``market`` signs (:func:`tip_choice`), warning of a low one.

    A tip typed under the preset's least is signed as typed (the user's choice), after
    one line on stderr saying so (:func:`warn_of_low_tip`); a cancellation still tips
    at least the preset's least (:attr:`mech_catalogue_cli.fee_caps.TipChoice.cancel_least`).

    :param market: the paying marketplace.
    :param typed: ``--priority-fee-per-gas`` (None: not typed), wei per gas.
    :param preset: the ``--chain`` preset (None: the devnet, or a custom ``--rpc``).
    :param devnet: whether the chain is the devnet (its tip: 0).
    """
    warn_of_low_tip(typed, preset)
    market.tips = tip_choice(typed, preset, devnet)


def warn_of_low_tip(
    typed: Optional[int], preset: Optional[ChainPreset], cancels: bool = True
) -> None:
    """Print :func:`tip_warning` on stderr when there is one (stdout is the output's).

    :param typed: ``--priority-fee-per-gas`` (None: not typed), wei per gas.
    :param preset: the ``--chain`` preset (None: nothing said).
    :param cancels: whether the command cancels what it signed (``mcp``, ``prepay``'s
        server rules; not ``publish``).
    """
    warning = tip_warning(typed, preset, cancels)
    if warning:
        click.echo(warning, err=True)  # stdout is the MCP protocol's, or JSON


def tip_warning(
    typed: Optional[int], preset: Optional[ChainPreset], cancels: bool = True
) -> str:
    """One line warning of a ``--priority-fee-per-gas`` under the preset's least tip.

    :param typed: ``--priority-fee-per-gas`` (None: not typed), wei per gas.
    :param preset: the ``--chain`` preset (None: the devnet or a custom ``--rpc``,
        whose least is unknown: nothing said).
    :param cancels: whether the command's cancellations are named (they tip the least
        whatever was typed); ``publish`` sends one update and cancels nothing.
    :return: the warning (what was typed, the least, what may happen, what to do), or
        "" when the tip is not under the preset's least.
    """
    if typed is None or preset is None or typed >= preset.min_priority_fee_wei:
        return ""
    least = preset.min_priority_fee_wei
    refused = (
        "the requests or leave them unmined (cancellations still tip the least)"
        if cancels
        else "the transaction or leave it unmined"
    )
    return (
        f"warning: --priority-fee-per-gas {say_gwei(typed)} is under the "
        f"{preset.name} preset's least tip, {say_gwei(least)}: its nodes may refuse "
        f"{refused}; give --priority-fee-per-gas {least} or more, or leave it out to "
        "sign the least"
    )


def fee_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--max-fee-per-gas`` and ``--priority-fee-per-gas``.

    :param command: the click command.
    :return: it, with the options (``max_fee_per_gas``, ``priority_fee_per_gas``:
        wei per gas, or None when not typed).
    """
    command = click.option(
        "--priority-fee-per-gas",
        callback=_fee_per_gas,
        default=None,
        help="The tip (maxPriorityFeePerGas) every transaction is signed with, in wei "
        "(1e9, 1000000000 or 1gwei). Default: the --chain preset's least tip (25 gwei "
        "on polygon, as Bor refuses less; 0 on arbitrum; 1 wei elsewhere, as geth's "
        "pool refuses 0), 0 on the devnet; with a custom --rpc and no preset, the "
        "node's eth_maxPriorityFeePerGas read at each signing (0 when the node has "
        "no such method; a suggestion over --max-fee-per-gas signs nothing).",
        metavar="WEI",
    )(command)
    command = click.option(
        "--max-fee-per-gas",
        callback=_fee_per_gas,
        default=None,
        help="Most wei per gas a transaction is signed for (default: the --chain "
        "preset's: 100 gwei on mainnet and gnosis, 1 gwei on base, optimism and "
        "arbitrum, 1000 gwei on polygon and celo; 100 gwei on the devnet or a custom "
        "--rpc; also written 100gwei). The fee signed is twice the latest block's "
        "base fee plus the tip (--priority-fee-per-gas), within this. When the base "
        "fee plus the tip is over this cap nothing is signed and the refusal says the "
        "fee needed and the cap.",
        metavar="WEI",
    )(command)
    return command


def gas_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--max-gas``, ``--max-fee-per-gas`` and ``--priority-fee-per-gas``.

    :param command: the click command.
    :return: it, with the options (``max_gas``, ``max_fee_per_gas``,
        ``priority_fee_per_gas``: ints, the last two wei per gas or None).
    """
    command = fee_options(command)
    return click.option(
        "--max-gas",
        callback=_whole_number,
        default=str(DEFAULT_MAX_GAS),
        show_default=True,
        help="Most gas one transaction is signed for: a request whose gas estimate "
        "is over it is not sent (the marketplace runs the mech's code in the "
        "request, so a mech sets its gas) and the next offer is tried.",
        metavar="GAS",
    )(command)
