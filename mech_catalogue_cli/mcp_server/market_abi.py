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

"""The MechMarketplace's functions and events the MCP server reads (:mod:`.market`).

Sources: ai-registry-mech 0.8.28's MechMarketplace and OlasMech ABIs
(``../shared/reference``) and the open-autonomy wheel's MechMarketplace (the devnet's).
"""

from typing import Any, Dict, List, Tuple

from web3 import Web3

_ADDRESS = {"type": "address", "name": ""}
MARKETPLACE_ABI: List[Dict[str, Any]] = [
    {
        "type": "function",
        "name": "request",
        "stateMutability": "payable",
        "inputs": [
            {"type": "bytes", "name": "requestData"},
            {"type": "uint256", "name": "maxDeliveryRate"},
            {"type": "bytes32", "name": "paymentType"},
            {"type": "address", "name": "priorityMech"},
            {"type": "uint256", "name": "responseTimeout"},
            {"type": "bytes", "name": "paymentData"},
        ],
        "outputs": [{"type": "bytes32", "name": "requestId"}],
    },
    {
        "type": "function",
        "name": "getRequestId",
        "stateMutability": "view",
        "inputs": [
            {"type": "address", "name": "mech"},
            {"type": "address", "name": "requester"},
            {"type": "bytes", "name": "data"},
            {"type": "uint256", "name": "deliveryRate"},
            {"type": "bytes32", "name": "paymentType"},
            {"type": "uint256", "name": "nonce"},
        ],
        "outputs": [{"type": "bytes32", "name": ""}],
    },
    {
        "type": "function",
        "name": "getRequestStatus",
        "stateMutability": "view",
        "inputs": [{"type": "bytes32", "name": "requestId"}],
        "outputs": [{"type": "uint8", "name": "status"}],
    },
    {
        "type": "function",
        "name": "mapRequestIdInfos",
        "stateMutability": "view",
        "inputs": [{"type": "bytes32", "name": ""}],
        "outputs": [
            {"type": "address", "name": "priorityMech"},
            {"type": "address", "name": "deliveryMech"},
            {"type": "address", "name": "requester"},
            {"type": "uint256", "name": "responseTimeout"},
            {"type": "uint256", "name": "deliveryRate"},
            {"type": "bytes32", "name": "paymentType"},
        ],
    },
    {
        "type": "function",
        "name": "mapNonces",
        "stateMutability": "view",
        "inputs": [_ADDRESS],
        "outputs": [{"type": "uint256", "name": ""}],
    },
    {
        "type": "function",
        "name": "minResponseTimeout",
        "stateMutability": "view",
        "inputs": [],
        "outputs": [{"type": "uint256", "name": ""}],
    },
    {
        "type": "function",
        "name": "maxResponseTimeout",
        "stateMutability": "view",
        "inputs": [],
        "outputs": [{"type": "uint256", "name": ""}],
    },
]
#: the one mech call read at send time (MechFixedPriceNative, ai-registry-mech 0.8.28)
MECH_PRICE_ABI: List[Dict[str, Any]] = [
    {
        "type": "function",
        "name": "maxDeliveryRate",
        "stateMutability": "view",
        "inputs": [],
        "outputs": [{"type": "uint256", "name": ""}],
    },
]
#: ``Deliver`` of ai-registry-mech's OlasMech and of the devnet's FixtureMech
DELIVER_TOPICS = {
    "0x"
    + Web3.keccak(text="Deliver(address,address,bytes32,uint256,bytes)")
    .hex()
    .removeprefix("0x"): [
        "bytes32",
        "uint256",
        "bytes",
    ],
    "0x"
    + Web3.keccak(text="Deliver(address,bytes32,bytes)")
    .hex()
    .removeprefix("0x"): [
        "bytes32",
        "bytes",
    ],
}


#: ``MarketplaceRequest`` of the open-autonomy wheel's MechMarketplace (the devnet's) and of
#: ai-registry-mech 0.8.28 (``../shared/reference``): ``priorityMech`` and ``requester``
#: indexed; the data types of each, and whether it carries the request datas
REQUEST_TOPICS: Dict[str, Tuple[List[str], bool]] = {
    "0x"
    + Web3.keccak(text="MarketplaceRequest(address,address,uint256,bytes32[],bytes[])")
    .hex()
    .removeprefix("0x"): (["uint256", "bytes32[]", "bytes[]"], True),
    "0x"
    + Web3.keccak(text="MarketplaceRequest(address,address,uint256,bytes32[])")
    .hex()
    .removeprefix("0x"): (["uint256", "bytes32[]"], False),
}
