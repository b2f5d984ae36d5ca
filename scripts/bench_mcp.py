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

"""Benchmark: one MCP ``tools/call`` on the devnet per payment way, and where its time goes.

``python scripts/bench_mcp.py [calls] [delivery_poll]``: starts a seeded devnet, the
devnet responder (``scripts/devnet/responder.py``, a stand-in mech operator polling every
``delivery_poll`` seconds) and ``mech-catalogue mcp --devnet`` over stdio, driven by the
``mcp`` SDK client. Each call has new arguments, so each is a new paid request. Prints,
per phase (the server's own timings in ``_meta["io.olas/mech-request"]["seconds"]``:
validation, IPFS upload, transaction, wait for delivery, fetch) and for the whole call
as the client sees it, the median and the maximum in milliseconds, side by side for each
payment way: the deployed service's native mech (value with the request), its OLAS- and
its USDC-priced mech (an ERC-20 approval of the price, then the request with no value:
both inside ``transaction``), each pinned with ``--mech`` in its own server run; and
``offchain``: the native mech again, its service's manifest declaring the devnet stand-in
endpoint (``scripts/devnet/offchain_responder.py``), the calls' price prepaid on the
native tracker, ``--offchain only``: the signed request posted (``offchain_post``), no
transaction of the requester's, the mech's settlement waited for (``delivery_wait``).
"""

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import anyio  # noqa: E402  pylint: disable=wrong-import-position
from mcp import Client  # noqa: E402  pylint: disable=wrong-import-position
from mcp.client.stdio import (  # noqa: E402  pylint: disable=wrong-import-position
    StdioServerParameters,
)

from scripts.devnet import Devnet  # noqa: E402  pylint: disable=wrong-import-position
from scripts.devnet.offchain_responder import (  # noqa: E402  pylint: disable=wrong-import-position
    OffchainResponder,
    declare_endpoint,
    prepay_native,
)
from scripts.devnet.responder import (  # noqa: E402  pylint: disable=wrong-import-position
    Responder,
)

ROOT = Path(__file__).resolve().parent.parent
TOOL = "prediction-online"
PHASES = (
    "validation",
    "ipfs_upload",
    "transaction",
    "offchain_post",
    "delivery_wait",
    "fetch",
)


async def _calls(  # pylint: disable=too-many-arguments
    devnet: Devnet, state: Path, calls: int, poll: float, mech: str, *extra: str
) -> List[Dict[str, float]]:
    argv = [
        "-m",
        "mech_catalogue_cli",
        "mcp",
        "--devnet-dir",
        str(devnet.info.state_dir),
        "--state-dir",
        str(state),
        "--delivery-poll",
        str(poll),
        "--mech",
        mech,
        *extra,
    ]
    params = StdioServerParameters(
        command=sys.executable,
        args=argv,
        # this checkout's library too, not whichever one the environment installed
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join(
                (str(ROOT), str(ROOT / "libs" / "mech-catalogue-core"))
            ),
        },
        cwd=str(ROOT),
    )
    rows = []
    async with Client(params) as client:
        await client.list_tools()
        for n in range(calls):
            began = time.monotonic()
            result = await client.call_tool(
                TOOL,
                # the arguments name the run: a call of another run with the same
                # arguments would be that run's request, resumed (never paid again)
                {
                    "prompt": f"benchmark {state.name} {mech} question {n}",
                    "temperature": 0.5,
                },
            )
            total = time.monotonic() - began
            meta = result.meta or {}
            if result.is_error or "io.olas/mech-request" not in meta:
                raise RuntimeError(f"call {n} failed: {result.content}")
            row = dict(meta["io.olas/mech-request"]["seconds"])
            row["client_total"] = total
            rows.append(row)
    return rows


def _mech_per_way(devnet: Devnet) -> Dict[str, str]:
    """The deployed service's mech of each payment way (its Safe delivers).

    :param devnet: the seeded devnet.
    :return: ``{"native" | "olas" | "usdc": mech address}``.
    """
    marketplace = [m for m in devnet.info.mechs if m["kind"] == "marketplace"]
    deployed = next(m for m in marketplace if m.get("asset") == "olas")["service_id"]
    return {
        m.get("asset", "native"): m["address"]
        for m in marketplace
        if m["service_id"] == deployed
    }


def _offchain_calls(
    devnet: Devnet, folder: Path, calls: int, poll: float, ways: Dict[str, str]
) -> List[Dict[str, float]]:
    """The native mech called off-chain through the devnet stand-in endpoint.

    :param devnet: the seeded devnet.
    :param folder: where the server's state goes.
    :param calls: how many calls.
    :param poll: the server's delivery poll, seconds.
    :param ways: :func:`_mech_per_way`.
    :return: the calls' phase rows.
    """
    mech = ways["native"]
    service = next(m for m in devnet.info.mechs if m["address"] == mech)["service_id"]
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    requester = devnet.address("stranger")  # the account mcp --devnet pays from
    with OffchainResponder(devnet.info, [mech]) as endpoint:
        declare_endpoint(devnet, int(service), endpoint.url)
        prepay_native(devnet, requester, calls * price)
        return anyio.run(
            _calls,
            devnet,
            folder / "state-offchain",
            calls,
            poll,
            mech,
            "--offchain",
            "only",
        )


def main(calls: int = 10, poll: float = 0.25) -> None:
    """Run ``calls`` paid calls per payment way and print the phase figures side by side.

    :param calls: how many calls per payment way.
    :param poll: the server's delivery poll and the responder's interval, seconds.
    """
    rows: Dict[str, List[Dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as folder:
        with Devnet.start(seed=True, state_dir=Path(folder) / "devnet") as devnet:
            ways = _mech_per_way(devnet)
            with Responder(
                devnet.info,
                list(ways.values()),
                devnet.w3.eth.block_number,
                interval=poll,
            ):
                for way, mech in ways.items():
                    state = Path(folder) / f"state-{way}"
                    rows[way] = anyio.run(_calls, devnet, state, calls, poll, mech)
            rows["offchain"] = _offchain_calls(devnet, Path(folder), calls, poll, ways)
    print(
        f"{calls} paid tools/call of {TOOL} per payment way, delivery poll {poll} s "
        "(anvil, kubo, 2 cores); median / max ms"
    )
    print(f"{'phase':<14}" + "".join(f"{way:>22}" for way in rows))
    for phase in PHASES + ("client_total",):
        cells = []
        for way_rows in rows.values():
            values = [row.get(phase, 0.0) * 1000 for row in way_rows]
            cells.append(f"{statistics.median(values):.1f} / {max(values):.1f}")
        print(f"{phase:<14}" + "".join(f"{cell:>22}" for cell in cells))


if __name__ == "__main__":
    main(
        int(sys.argv[1]) if len(sys.argv) > 1 else 10,
        float(sys.argv[2]) if len(sys.argv) > 2 else 0.25,
    )
