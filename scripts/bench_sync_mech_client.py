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

"""Benchmark worker: list every mech's tools the way mech-client 0.24.1 does.

Runs in the interpreter that has mech-client installed (a throwaway venv under
``~/.cache``, because mech-client's dependencies conflict with ours), or, with
``--reimplementation``, in ours. Imports nothing from this repository.

mech-client's way (``mech_client/domain/tools/manager.py``, ``ToolManager.get_tools``):
per service id, ``ComplementaryServiceMetadata.tokenURI(serviceId)`` through web3, then
``requests.get(uri, timeout=10).json()``, one mech after the other, no cache. Two
adjustments point it at the devnet: the chain RPC comes from ``MECHX_CHAIN_RPC`` (its own
override), and ``mech_config.complementary_metadata_hash_address`` is set to the devnet's
ComplementaryServiceMetadata (the contract code is the same, only the address differs);
the gateway host of the URI the contract returns (``https://gateway.autonolas.tech``) is
rewritten to the local gateway. The code path is otherwise mech-client's own.

Protocol with ``scripts/bench_sync.py``: prints ``{"ready": ...}`` and waits for a line on
stdin before timing, then prints one JSON result line.
"""

import argparse
import json
import resource
import sys
import time
from typing import Any, Callable, Dict, Optional

GATEWAY_HOST = "https://gateway.autonolas.tech"

CSM_ABI = [
    {
        "inputs": [{"name": "unitId", "type": "uint256"}],
        "name": "tokenURI",
        "outputs": [{"name": "", "type": "string"}],
        "stateMutability": "view",
        "type": "function",
    }
]


def rss_kib() -> int:
    """Peak resident set size of this process so far.

    :return: KiB (Linux ``ru_maxrss``).
    """
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def rewriting_get(original: Callable[..., Any], gateway: str) -> Callable[..., Any]:
    """Wrap ``requests.get`` so the public gateway host becomes the local gateway.

    :param original: ``requests.get``.
    :param gateway: the local gateway base URL.
    :return: the wrapper.
    """

    def get(url: str, *args: Any, **kwargs: Any) -> Any:
        if url.startswith(GATEWAY_HOST):
            url = gateway + url[len(GATEWAY_HOST) :]
        return original(url, *args, **kwargs)

    return get


def mech_client_lister(csm: str, gateway: str) -> Callable[[int], Optional[Any]]:
    """Build ``service_id -> ToolsForMarketplaceMech`` with mech-client's own ToolManager.

    :param csm: the devnet ComplementaryServiceMetadata address.
    :param gateway: the local gateway base URL.
    :return: ``ToolManager.get_tools``.
    """
    import requests  # pylint: disable=import-outside-toplevel
    from mech_client.domain.tools import (  # pylint: disable=import-outside-toplevel,import-error
        manager,
    )

    manager.requests.get = rewriting_get(requests.get, gateway)  # type: ignore[attr-defined]
    tools = manager.ToolManager("gnosis")
    tools.mech_config.complementary_metadata_hash_address = csm
    return tools.get_tools


def reimplementation_lister(
    csm: str, gateway: str, rpc: str
) -> Callable[[int], Optional[Any]]:
    """Build the faithful re-implementation: one ``tokenURI`` call and one GET per mech.

    :param csm: the ComplementaryServiceMetadata address.
    :param gateway: the local gateway base URL.
    :param rpc: the chain RPC URL.
    :return: ``service_id -> tool names or None``.
    """
    import requests  # pylint: disable=import-outside-toplevel
    from web3 import Web3  # pylint: disable=import-outside-toplevel

    get = rewriting_get(requests.get, gateway)
    contract = Web3(Web3.HTTPProvider(rpc)).eth.contract(
        address=Web3.to_checksum_address(csm), abi=CSM_ABI
    )

    def list_tools(service_id: int) -> Optional[Any]:
        uri = contract.functions.tokenURI(service_id).call()
        try:
            metadata = get(uri, timeout=10).json()
        except (ValueError, OSError):
            return None
        return metadata.get("tools") or None if isinstance(metadata, dict) else None

    return list_tools


def main() -> None:
    """Run one timed pass over service ids 1..N and print the result as JSON."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, required=True)
    parser.add_argument("--csm", required=True)
    parser.add_argument("--gateway", required=True)
    parser.add_argument("--rpc", required=True)
    parser.add_argument("--reimplementation", action="store_true")
    args = parser.parse_args()
    baseline = rss_kib()
    if args.reimplementation:
        list_tools = reimplementation_lister(args.csm, args.gateway, args.rpc)
    else:
        list_tools = mech_client_lister(args.csm, args.gateway)
    print(json.dumps({"ready": "cold"}), flush=True)
    sys.stdin.readline()
    began = time.perf_counter()
    listed: Dict[int, int] = {}
    for service_id in range(1, args.n + 1):
        got = list_tools(service_id)
        tools = getattr(got, "tools", got)
        listed[service_id] = len(tools) if tools else 0
    seconds = time.perf_counter() - began
    print(
        json.dumps(
            {
                "phase": "cold",
                "seconds": seconds,
                "mechs_listed": sum(1 for n in listed.values() if n),
                "tools": sum(listed.values()),
                "rss_baseline_kib": baseline,
                "rss_peak_kib": rss_kib(),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
