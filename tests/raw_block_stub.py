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

"""A provider stand-in answering raw block reads from a stub node's ``get_block``.

The server reads blocks raw (``mech_catalogue_cli/raw_blocks.py``: ``eth_getBlockByNumber``
through ``w3.provider.make_request``); unit tests' node stand-ins answer
``w3.eth.get_block`` with ints. :class:`BlocksOfStub` turns one into the other.
"""

from typing import Any, Dict, List


class BlocksOfStub:
    """``w3.provider`` answering ``eth_getBlockByNumber`` from ``w3.eth.get_block``.

    :param w3: the stub ``Web3`` (read at each request, so a test may swap its ``eth``).
    """

    def __init__(self, w3: Any) -> None:
        """Answer from ``w3.eth.get_block``.

        :param w3: the stub ``Web3``.
        """
        self.w3 = w3
        self.asked: List[Any] = []

    def make_request(self, method: str, params: List[Any]) -> Dict[str, Any]:
        """Answer one raw block read, its ints written as hex quantities.

        :param method: must be ``eth_getBlockByNumber``.
        :param params: ``[tag or hex number, full transactions]``.
        :return: the JSON-RPC answer.
        """
        assert method == "eth_getBlockByNumber", method
        tag = params[0]
        self.asked.append(tag)
        block = self.w3.eth.get_block(int(tag, 16) if tag.startswith("0x") else tag)
        written = {k: hex(v) if isinstance(v, int) else v for k, v in block.items()}
        if tag.startswith("0x"):  # a node's block carries its number (adv29zx R1)
            written.setdefault("number", tag)
        return {"jsonrpc": "2.0", "id": 1, "result": written}
