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

"""How the MCP server pays and waits for calls, and where one call's time goes."""

import time
from dataclasses import dataclass, field
from typing import Dict, Optional, Tuple

from mech_catalogue_core.chain.presets import DEFAULT_FINAL_DEPTH

from .option_defaults import IO_TIMEOUT
from .source import DEFAULT_PAGE_SIZE
from .spend_cap import DEFAULT_SPEND_WINDOW_SECONDS


@dataclass
class CallSettings:  # pylint: disable=too-many-instance-attributes
    """How calls are paid and waited for.

    :param gateway_url: IPFS gateway (responses).
    :param ipfs_api_url: kubo RPC API (request upload).
    :param max_price: per-call cap of native-priced calls, wei (None: none).
    :param max_spend: cap on native payments within ``spend_window``, wei (None: none).
    :param spend_window: seconds of spending every asset's cap covers, across restarts
        (requests of the asset journalled in the same state folder count; None: this
        run only).
    :param token_max_price: per-call caps of token-priced calls, asset (``olas``,
        ``usdc``: ``model.payment.ASSETS``) -> the token's smallest units; an asset
        missing has no cap.
    :param token_max_spend: caps of token payments within ``spend_window`` (requests
        pull at most this much of the asset), same keys and units.
    :param pinned: ``--mech`` (a mech contract address or catalogue entry key).
    :param allowed: ``--allow-mech`` (addresses or entry keys; empty: any mech).
    :param dry_run: return the transaction and payload instead of sending.
    :param timeout: ``--timeout``: seconds one call may take, from its start to its
        answer: a wait for a held nonce or for finality, the send and the wait for the
        delivery share them (:meth:`PhaseTimer.left`).
    :param delivery_poll: seconds between delivery checks (and progress notifications).
    :param poll_seconds: seconds between catalogue reads.
    :param page_size: tools per ``tools/list`` page.
    :param io_timeout: seconds per IPFS request, and to wait for a sent transaction's
        receipt (``--io-timeout``).
    :param all_tools: list every tool, not only those a call can pay for now.
    :param pin_file: ``--pin``: the approved tool definitions (:mod:`.pins`; "" for none).
    :param discovery: ``--discovery``: ``list``, ``search`` or ``auto``
        (:class:`.option_defaults.DiscoveryMode`).
    :param offchain: ``--offchain``: ``never``, ``auto`` or ``only``
        (:class:`.option_defaults.OffchainMode`).
    :param auto_prepay: ``--auto-prepay``: asset -> the amount one automatic deposit
        after a mech's 402 makes, the asset's smallest units (empty: never deposits;
        :mod:`.auto_prepay`).
    :param final_depth: ``--final-depth``: blocks below the head at which a mined
        transaction counts as final (the ``--chain`` preset's ``final_depth``, else
        ``DEFAULT_FINAL_DEPTH``): a call whose request is not on chain while its
        account nonce is taken pays no other request until the nonce is this deep.
    :param block_seconds: the chain's least seconds between two blocks (the
        ``--chain`` preset's; None: not known, a devnet mining on demand or a custom
        ``--rpc``): a call held until a final block that cannot come within its
        ``--timeout`` at this pace says so at once (:func:`.dropped.held_pause`).
    """

    gateway_url: str
    ipfs_api_url: str
    max_price: Optional[int] = None
    max_spend: Optional[int] = None
    spend_window: Optional[float] = DEFAULT_SPEND_WINDOW_SECONDS
    token_max_price: Dict[str, int] = field(default_factory=dict)
    token_max_spend: Dict[str, int] = field(default_factory=dict)
    pinned: str = ""
    allowed: Tuple[str, ...] = ()
    dry_run: bool = False
    timeout: float = 300.0
    delivery_poll: float = 1.0
    poll_seconds: float = 30.0
    page_size: int = DEFAULT_PAGE_SIZE
    io_timeout: float = IO_TIMEOUT
    all_tools: bool = False
    pin_file: str = ""
    discovery: str = "auto"
    offchain: str = "never"
    auto_prepay: Dict[str, int] = field(default_factory=dict)
    final_depth: int = DEFAULT_FINAL_DEPTH
    block_seconds: Optional[float] = None


#: seconds a wait begun when its call's ``--timeout`` is spent is still given
#: (:meth:`PhaseTimer.within`)
LEAST_WAIT = 1.0


@dataclass
class PhaseTimer:
    """One call's clock: seconds per phase (``_meta`` ``seconds``) and since it began.

    Monotonic. Every wait of the call (a held nonce, finality, the receipt, the
    delivery) is bounded by what is :meth:`left` of the call's ``--timeout``, so a
    call never takes the timeout once per wait.
    """

    marks: Dict[str, float] = field(default_factory=dict)
    last: float = field(default_factory=time.monotonic)
    began: float = field(default_factory=time.monotonic)

    def elapsed(self) -> float:
        """Seconds since the call began."""
        return time.monotonic() - self.began

    def left(self, timeout: float) -> float:
        """Seconds of ``timeout`` (the call's ``--timeout``) not yet spent (0 at least)."""
        return max(timeout - self.elapsed(), 0.0)

    def within(self, timeout: float, most: float, least: float = LEAST_WAIT) -> float:
        """Seconds one wait of the call may take: ``most``, or the call's time left.

        :param timeout: the call's ``--timeout``.
        :param most: what the wait takes alone (``--io-timeout``, a post's bound).
        :param least: seconds a wait begun at the end of the call is still given (a
            post or broadcast begun gets a look at its answer; one not seen is
            journalled and found by the next call).
        :return: ``min(most, max(time left, least))``, the time left to 0.1 s.
        """
        return min(most, max(round(self.left(timeout), 1), least))

    def lap(self, name: str) -> None:
        """Add the time since the last lap to ``name``."""
        now = time.monotonic()
        self.marks[name] = round(self.marks.get(name, 0.0) + now - self.last, 4)
        self.last = now
