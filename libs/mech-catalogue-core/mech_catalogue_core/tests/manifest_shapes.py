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

"""Our own manifests in every shape seen in the wild (written for these tests, not copied)."""

import json
from typing import Any, Dict

PREDICTION_OUTPUT = {
    "type": "object",
    "description": "The prediction and its confidence",
    "schema": {
        "type": "object",
        "properties": {
            "requestId": {"type": "integer", "description": "Request identifier"},
            "result": {"type": "string", "description": "JSON text with p_yes, p_no"},
        },
        "required": ["requestId", "result"],
    },
}

TOOLS_ONLY: Dict[str, Any] = {
    "name": "Fixture Mech One",
    "description": "Answers questions.",
    "inputFormat": "ipfs-v0.1",
    "outputFormat": "ipfs-v0.1",
    "image": "none",
    "tools": ["guess-weather", "summarise-text", "roll-dice"],
}

TOOL_METADATA: Dict[str, Any] = {
    "name": "Fixture Mech Two",
    "description": "Predicts markets.",
    "inputFormat": "ipfs-v0.1",
    "outputFormat": "ipfs-v0.1",
    "image": "none",
    "url": "",
    "tools": ["market-odds", "market-odds-lite"],
    "toolMetadata": {
        name: {
            "name": name,
            "description": f"Estimates the odds ({name}).",
            "input": {"type": "text", "description": "A yes/no market question"},
            "output": PREDICTION_OUTPUT,
        }
        for name in ("market-odds", "market-odds-lite")
    },
}

KWARGS_SEED: Dict[str, Any] = {
    "name": "Fixture Mech Three",
    "description": "Builds transactions.",
    "tools": ["transfer-tokens"],
    "toolMetadata": {
        "transfer-tokens": {
            "name": "transfer-tokens",
            "description": "Builds an ERC-20 transfer.",
            "kwargs": [
                {"identifier": "token", "type": "hexAddress"},
                {"identifier": "to", "type": "hexAddress"},
                {"identifier": "units", "type": "int"},
            ],
        }
    },
}

INPUT_SCHEMA: Dict[str, Any] = {
    "name": "Fixture Mech Four",
    "tools": ["search-web"],
    "toolMetadata": {
        "search-web": {
            "name": "search-web",
            "description": "Searches the web.",
            "input": {
                "type": "object",
                "description": "Search parameters",
                "schema": {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "description": "What to look for"},
                        "max_results": {"type": "integer", "default": 5},
                        "sites": {
                            "type": "array",
                            "items": {"type": "string", "format": "uri"},
                        },
                    },
                    "required": ["query"],
                },
            },
            "output": PREDICTION_OUTPUT,
        }
    },
}

DESCRIPTION_JSON: Dict[str, Any] = {
    "name": "Fixture Mech Five",
    "tools": ["hash-text"],
    "toolMetadata": {
        "hash-text": {
            "name": "hash-text",
            "description": json.dumps(
                {
                    "description": "Hashes text.",
                    "kwargs": [{"identifier": "algorithm", "type": "str"}],
                    "output": {"type": "string", "description": "hex digest"},
                }
            ),
        }
    },
}

V1_TYPED: Dict[str, Any] = {
    "specVersion": "1",
    "name": "Fixture Mech Six",
    "description": "Typed tools.",
    "inputFormat": "ipfs-v0.1",
    "outputFormat": "ipfs-v0.1",
    "tools": ["swap-quote"],
    "toolMetadata": {
        "swap-quote": {
            "name": "swap-quote",
            "description": "Quotes a swap.",
            "input": {"type": "text", "description": "Optional free-text notes"},
            "output": PREDICTION_OUTPUT,
            "arguments": [
                {
                    "identifier": "sell_token",
                    "type": "hexAddress",
                    "description": "Token sold",
                },
                {
                    "identifier": "buy_token",
                    "type": "hexAddress",
                    "description": "Token bought",
                },
                {
                    "identifier": "amount",
                    "type": "uint256",
                    "description": "Amount in base units",
                },
                {
                    "identifier": "side",
                    "type": "enum",
                    "enum": ["buy", "sell"],
                    "default": "sell",
                },
                {"identifier": "hops", "type": "list[bytes32]", "required": False},
                {
                    "identifier": "slippage",
                    "type": "float",
                    "default": 0.5,
                    "description": "Percent",
                },
            ],
            "examples": [
                {
                    "sell_token": "0x" + "11" * 20,
                    "buy_token": "0x" + "22" * 20,
                    "amount": "1000",
                }
            ],
            "x-pricing": {"usd": 0.01},
        }
    },
    "x-contact": "ops@example.invalid",
}

ALL_SHAPES = {
    "tools_only": TOOLS_ONLY,
    "tool_metadata": TOOL_METADATA,
    "kwargs": KWARGS_SEED,
    "input_schema": INPUT_SCHEMA,
    "description_json": DESCRIPTION_JSON,
    "v1_typed": V1_TYPED,
}


def encode(document: Any) -> bytes:
    """Return uTF-8 JSON bytes as a mech would publish them.

    :param document: a JSON value.
    :return: UTF-8 JSON bytes as a mech would publish them.
    """
    return json.dumps(document, indent=2).encode("utf-8")
