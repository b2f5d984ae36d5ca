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

"""A block's numbers read raw, whatever else the block holds.

``w3.eth.get_block`` checks the whole block before returning it, and refuses one whose
``extraData`` is longer than 32 bytes (``ExtraDataLengthError``) unless web3's
proof-of-authority middleware is installed: every Polygon PoS (Bor) block carries 97
(a 32-byte vanity and a 65-byte seal), so every base fee read there failed and no
request could be signed (adv29zv P1). What signs (the MCP server, ``prepay``,
``publish``: :mod:`mech_catalogue_cli.fee_caps`) reads only a block's numbers
(``number``, ``timestamp``, ``baseFeePerGas``), so it asks
``eth_getBlockByNumber(block, false)`` itself and checks only those.
"""

import re
from typing import Any, Dict, Optional, Sequence, Union

from mech_catalogue_core.model.quoted_text import quoted_for_model
from web3.types import RPCEndpoint

#: a quantity as JSON-RPC writes it (a bounded length: 2^256 at most); execution API
#: "Quantities" (ethereum/execution-apis, src/schemas/base-types.yaml ``uint``)
HEX_NUMBER = re.compile(r"0x[0-9a-fA-F]{1,64}")


class BlockUnread(ValueError):
    """The node answered no block: an error, ``null``, or not a block (its words kept)."""


def block_numbers(
    w3: Any, block: Union[str, int], names: Sequence[str]
) -> Dict[str, Optional[int]]:
    """Read some of a block's quantities, asked raw (blocking).

    :param w3: a connected ``Web3`` (its provider is asked directly).
    :param block: a block tag (``"latest"``, ``"finalized"``) or a block number.
    :param names: the block's fields to read (``"number"``, ``"baseFeePerGas"``...).
    :return: each name to its value, or None when the block has no such field (a
        chain before EIP-1559 has no ``baseFeePerGas``).
    :raises BlockUnread: when the node answers an error, ``null`` or no block, a
        block whose ``number`` is not ``block`` (a number asked: adv29zx R1), or a
        named field that is not a ``0x`` hex quantity. A node that cannot be
        reached raises the provider's ``OSError``; a garbled answer web3's
        ``Web3Exception`` or ``ValueError``.
    """
    tag = block if isinstance(block, str) else hex(block)
    answer = w3.provider.make_request(RPCEndpoint("eth_getBlockByNumber"), [tag, False])
    found = answer.get("result") if isinstance(answer, dict) else None
    if not isinstance(found, dict):
        error = answer.get("error") if isinstance(answer, dict) else answer
        raise BlockUnread(
            f"no block {tag} in the node's answer, the node said "
            f"{quoted_for_model(error, 200)}"
        )
    number = found.get("number")
    if not isinstance(block, str) and not (
        isinstance(number, str)
        and HEX_NUMBER.fullmatch(number)
        and int(number, 16) == block
    ):
        # another block's numbers taken for this one's (adv29zx R1); a tag names
        # whichever block the node holds, so there is nothing to compare
        raise BlockUnread(
            f"the node answered block {quoted_for_model(number, 80)} "
            f"for block {tag}"
        )
    numbers: Dict[str, Optional[int]] = {}
    for name in names:
        value = found.get(name)
        if value is not None and not (
            isinstance(value, str) and HEX_NUMBER.fullmatch(value)
        ):
            raise BlockUnread(f"block {tag}'s {name} is not a quantity: {value!r:.80}")
        numbers[name] = None if value is None else int(value, 16)
    return numbers


class TipUnread(ValueError):
    """The node's tip suggestion is no quantity (its words kept, quoted)."""


def node_tip(w3: Any) -> Optional[int]:
    """The node's ``eth_maxPriorityFeePerGas`` suggestion, asked raw (blocking).

    Asked raw: web3's ``max_priority_fee`` answers a guess of its own from
    ``eth_feeHistory`` when the node has no such method.

    :param w3: a connected ``Web3`` (its provider is asked directly).
    :return: wei per gas, or None when the node answers an error (no such method, as
        a node of an older client or a restricted endpoint).
    :raises TipUnread: when it answers no ``0x`` hex quantity. A node that cannot be
        reached raises the provider's ``OSError``.
    """
    answer = w3.provider.make_request(RPCEndpoint("eth_maxPriorityFeePerGas"), [])
    if isinstance(answer, dict) and answer.get("error") is not None:
        return None
    found = answer.get("result") if isinstance(answer, dict) else answer
    if not (isinstance(found, str) and HEX_NUMBER.fullmatch(found)):
        raise TipUnread(
            "the node's eth_maxPriorityFeePerGas is no quantity, the node said "
            f"{quoted_for_model(found, 200)}"
        )
    return int(found, 16)
