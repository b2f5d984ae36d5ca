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


"""``--max-gas`` and ``--max-fee-per-gas``: what one signed transaction may cost in gas.

Shared by ``mcp`` and ``prepay``, which sign transactions
(:meth:`mech_catalogue_cli.mcp_server.market.Marketplace.sign`).
"""

from decimal import Decimal, InvalidOperation
from typing import Any, Callable, Optional

import click
from mech_catalogue_core.chain.presets import (
    DEFAULT_MAX_FEE_PER_GAS,
    DEFAULT_MIN_PRIORITY_FEE_PER_GAS,
    ChainPreset,
)

from mech_catalogue_cli.mcp_server.market_errors import DEFAULT_MAX_GAS


def _whole_number(
    ctx: click.Context, param: click.Parameter, value: Optional[str]
) -> Optional[int]:
    """Read a positive whole number, written plainly or as ``2e9`` (None: not given)."""
    if value is None:
        return None
    try:
        number = Decimal(value.strip().replace("_", ""))
    except InvalidOperation:
        number = Decimal(0)
    if not number.is_finite() or number != number.to_integral_value() or number < 1:
        raise click.BadParameter(
            f"{value!r} is no positive whole number (e.g. 1000000 or 1e6)", ctx, param
        )
    return int(number)


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


def gas_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--max-gas`` (``max_gas``) and ``--max-fee-per-gas`` (``max_fee_per_gas``).

    :param command: the click command.
    :return: it, with both options.
    """
    command = click.option(
        "--max-fee-per-gas",
        callback=_whole_number,
        default=None,
        help="Most wei per gas a transaction is signed for (default: the --chain "
        "preset's: 100 gwei on mainnet and gnosis, 1 gwei on base, optimism and "
        "arbitrum, 1000 gwei on polygon and celo; 100 gwei on the devnet or a custom "
        "--rpc). The fee signed is twice the latest block's base fee plus the "
        "chain's least tip, within this. The tip is the --chain preset's: 25 gwei on "
        "polygon (Bor refuses less), 0 on arbitrum, 1 wei elsewhere (geth's pool "
        "refuses 0), none on the devnet or a custom --rpc. When the base fee plus "
        "the tip is over this cap nothing is signed and the call says the fee "
        "needed and the cap.",
        metavar="WEI",
    )(command)
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
