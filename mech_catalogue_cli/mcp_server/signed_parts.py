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

"""What a call's journal entry says its call signed: the one reading every word uses.

A call signs up to three things, each journalled before it leaves the server: an
ERC-20 approval (``extra["approval"]``, :mod:`.payment`), its on-chain request
(``raw_tx``, :mod:`.sending`) or its off-chain request (``extra["offchain"]
["signature"]``, :mod:`.offchain`: no transaction; the mech holds it and may settle it
on chain against the prepaid balance). Whatever says "nothing was signed" of an entry
reads :func:`signed_parts` first, so no kind of signature is forgotten by one of them.
"""

from dataclasses import dataclass
from typing import Any, Optional, Tuple

from .journal import JournalEntry
from .outstanding import Hold, holds_of
from .payment import APPROVAL_KEY

#: ``extra`` key of a journal entry holding the call's off-chain request
OFFCHAIN_KEY = "offchain"


@dataclass(frozen=True)
class SignedParts:
    """What one journal entry signed (each True when journalled signed).

    :param approval: an ERC-20 approval (``extra["approval"]``).
    :param transaction: the on-chain request's transaction (``raw_tx``).
    :param offchain: the off-chain request's signature (``extra["offchain"]``).
    :param settleable: the call's off-chain requests its mech may still settle
        (:func:`.outstanding.holds_of`: the current one first, then earlier attempts;
        none once the requester's marketplace nonce is known to have passed them).
    """

    approval: bool = False
    transaction: bool = False
    offchain: bool = False
    settleable: Tuple[Hold, ...] = ()

    @property
    def request(self) -> bool:
        """Whether the call's request itself was signed (on chain or off it)."""
        return self.transaction or self.offchain

    @property
    def anything(self) -> bool:
        """Whether the entry signed anything at all (a request or an approval)."""
        return self.request or self.approval


def _offchain_signature(extra: Any) -> bool:
    """Whether an entry's ``extra`` holds a signed off-chain request (pure).

    :param extra: the entry's ``extra`` (a dict as the journal reads it back).
    :return: True when ``extra["offchain"]["signature"]`` is a non-empty string.
    """
    offchain = extra.get(OFFCHAIN_KEY) if isinstance(extra, dict) else None
    signature = offchain.get("signature") if isinstance(offchain, dict) else None
    return isinstance(signature, str) and bool(signature)


def signed_parts(entry: Optional[JournalEntry]) -> SignedParts:
    """Read what a call's journal entry signed (pure).

    :param entry: the call's entry (None: no entry, nothing signed).
    :return: the approval, transaction and off-chain requests it holds signed.
    """
    if entry is None:
        return SignedParts()
    extra = entry.extra if isinstance(entry.extra, dict) else {}
    offchain = _offchain_signature(extra)
    return SignedParts(
        approval=extra.get(APPROVAL_KEY) is not None,
        transaction=bool(entry.raw_tx),
        offchain=offchain,
        settleable=holds_of(entry) if offchain else (),
    )
