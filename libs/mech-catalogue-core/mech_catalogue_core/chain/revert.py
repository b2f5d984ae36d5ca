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

"""What a contract's revert says, in words a model may read (pure).

A revert's data is whatever the reverting contract wrote: Solidity's ``Error(string)``
with a reason of any text (markup, instructions, invisible characters), its
``Panic(uint256)``, or a custom error. When a marketplace calls a mech, the mech's
revert data reaches the caller unchanged, so the reason is a stranger's text
(adversarial review adv29r). :func:`revert_words` decodes the data with ``eth_abi``
and shows the reason as a manifest's label is shown, quoted as a JSON string
(:func:`.quoted_text.quoted_for_model`: invisible characters removed, markup inert,
capped, its quotes and line breaks escaped, so it cannot end the server's quotation and
write a sentence of its own after it: adv29zt Z4), never as written, and reads it
for instructions as a manifest's text is read (:func:`.secret_requests.orders_said`):
a reason giving a model orders is said to (adv29w).
"""

from typing import Any, Optional

from eth_abi import decode
from eth_abi.exceptions import DecodingError

from ..model.quoted_text import quoted_for_model
from ..model.secret_requests import orders_said

#: ``keccak256("Error(string)")[:4]``: Solidity's ``revert("reason")``
ERROR_SELECTOR = bytes.fromhex("08c379a0")
#: ``keccak256("Panic(uint256)")[:4]``: a failed assert, an overflow, a division by zero
PANIC_SELECTOR = bytes.fromhex("4e487b71")


def revert_data(data: Any) -> Optional[bytes]:
    """A revert's data as bytes, from what a node or web3 gives.

    :param data: ``0x`` hex text, bytes, or a node's ``{"data": "0x..."}`` (web3's
        ``ContractLogicError.data``); anything else is unknown.
    :return: the bytes, or None when there are none or they are not hex.
    """
    if isinstance(data, dict):
        data = data.get("data")
    if isinstance(data, (bytes, bytearray)):
        return bytes(data)
    if not isinstance(data, str):
        return None
    text = data[2:] if data[:2].lower() == "0x" else data
    try:
        return bytes.fromhex(text)
    except ValueError:
        return None


def revert_words(data: Any) -> str:
    """Say what a revert's data holds, its reason cleaned for a model.

    :param data: as :func:`revert_data` takes.
    :return: ``reason "..."`` (the ``Error(string)`` reason through
        :func:`.quoted_text.quoted_for_model`, one JSON string, then
        :func:`.secret_requests.orders_said`
        of it when it reads like instructions), ``panic 0x11``, ``custom error
        0x1234abcd``, or ``no reason`` (no data, or data no error's shape decodes).
    """
    raw = revert_data(data)
    if not raw or len(raw) < 4:
        return "no reason"
    selector, body = raw[:4], raw[4:]
    try:
        if selector == ERROR_SELECTOR:
            (reason,) = decode(["string"], body)
            quoted = quoted_for_model(reason, quote='"')
            return f"reason {quoted}{orders_said(str(reason))}"
        if selector == PANIC_SELECTOR:
            (code,) = decode(["uint256"], body)
            return f"panic {int(code):#x}"
    except (DecodingError, OverflowError, UnicodeDecodeError, ValueError):
        return f"undecodable error 0x{selector.hex()}"
    return f"custom error 0x{selector.hex()}"
