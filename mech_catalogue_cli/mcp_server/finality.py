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


"""Which block is final: the node's ``finalized`` block, else ``depth`` below the head.

A call pays no other request while its own could still be mined by a reorg, and a
mined revert's price counts against ``--max-spend`` until its block is final. Which
block is final is read from the node first: ``eth_getBlockByNumber("finalized")``
(the execution API's block tag, answered by post-merge Ethereum and Gnosis clients,
OP Stack, Arbitrum Nitro, Polygon Bor and anvil, which says ``head - 64``). A node
that answers it with an error, ``null`` or anything but a block number (an older
client, a chain without the tag) gives the fixed depth instead: ``head - depth`` (the
``--chain`` preset's ``final_depth``). ``--final-depth`` given on the command line is
used instead of the tag.

An answer past the node's own head is not believed (an honest node finalizes only
blocks it has; a hostile or broken one could release a revert's price at once): the
depth is used then too, with a warning naming both numbers.
"""

import logging
from dataclasses import dataclass
from typing import Any, Optional

from web3.exceptions import Web3Exception

from ..raw_blocks import block_numbers

LOGGER = logging.getLogger("mech_catalogue.mcp")

#: the execution API's block tag of the newest finalized block
FINALIZED_TAG = "finalized"


@dataclass(frozen=True)
class FinalBlock:
    """The newest block no reorg can take back, and the head it was read with.

    :param number: the block number; every block at or below it is final.
    :param head: the latest block number, read after it.
    :param tagged: True when ``number`` is the node's ``finalized`` block; False when
        it is ``max(head - depth, 0)``.
    """

    number: int
    head: int
    tagged: bool

    @property
    def depth(self) -> int:
        """Blocks between the head and the final block (the depth in use now).

        :return: ``head - number``.
        """
        return self.head - self.number

    def says(self) -> str:
        """Where the final block comes from, in words.

        :return: e.g. ``"the node's finalized block 36"`` or ``"64 blocks below the
            head 100"``.
        """
        if self.tagged:
            return f"the node's finalized block {self.number}"
        return f"{self.depth} blocks below the head {self.head}"


def finalized_number(w3: Any) -> Optional[int]:
    """Read the node's ``finalized`` block number (blocking).

    Asked raw (:func:`.raw_blocks.block_numbers`): web3's block checks would refuse a
    proof-of-authority chain's long ``extraData`` (Polygon's) without its middleware.

    :param w3: a connected ``Web3``.
    :return: the block number, or None when the node gives none: it answers the tag
        with an error or ``null``, or with something that is not a block with a
        ``0x`` hex number. ``OSError`` (the node unreachable) is raised.
    """
    try:
        return block_numbers(w3, FINALIZED_TAG, ("number",))["number"]
    except (Web3Exception, ValueError, TypeError):  # no block, or not JSON-RPC
        return None


def final_block(finalized: Optional[int], head: int, depth: int) -> FinalBlock:
    """Return the newest final block: the node's ``finalized`` one, else ``depth`` deep.

    Read the tag before the head (:func:`finalized_number`), so an honest node's answer
    is never past it.

    :param finalized: the node's ``finalized`` block number (None: none answered, or
        not asked).
    :param head: the node's head block number.
    :param depth: blocks below the head that count as final when the node has no
        ``finalized`` block (the chain's ``final_depth``, or ``--final-depth``), or
        when its answer is past ``head`` (not believed: a warning is logged).
    :return: the final block and the head.
    """
    if finalized is not None and finalized <= head:
        return FinalBlock(finalized, head, True)
    if finalized is not None:
        LOGGER.warning(
            "the node says block %d is finalized, past its own head %d: not believed; "
            "blocks %d deep count as final instead",
            finalized,
            head,
            depth,
        )
    return FinalBlock(max(head - depth, 0), head, False)
