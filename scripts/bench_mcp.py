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
both inside ``transaction``); then, after ``prepay`` deposited ``calls`` prices
(``mcp_server.prepay.Prepayer``, as ``mech-catalogue prepay --yes``), the native and the
USDC mech paid from the prepaid balance (the request alone: no value, no approval); and
the subscription mech, its credits minted first (the request alone, credits burnt). Each
way is pinned with ``--mech`` in its own server run, all in one devnet. Last,
``offchain``: the native mech again, its service's manifest declaring the devnet stand-in
endpoint (``scripts/devnet/offchain_responder.py``), the calls' price prepaid on the
native tracker, ``--offchain only``: the signed request posted (``offchain_post``), no
transaction of the requester's, the mech's settlement waited for (``delivery_wait``).
And ``402 prepay``: the same, with nothing left prepaid and ``--auto-prepay
native=<price>``: each call's post answered 402 (``offchain_post``), one deposit of the
price (``auto_prepay``: the transaction and its receipt), the same signed request posted
again (``offchain_retry``), then the settlement.
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
from mech_catalogue_core.model.payment import (  # noqa: E402  pylint: disable=C0413
    KNOWN_TERMS,
)

from mech_catalogue_cli.mcp_server.market import (  # noqa: E402  pylint: disable=C0413
    Marketplace,
)
from mech_catalogue_cli.mcp_server.prepay import (  # noqa: E402  pylint: disable=C0413
    Prepayer,
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
    "auto_prepay",
    "offchain_retry",
    "delivery_wait",
    "fetch",
)


async def _calls(  # pylint: disable=too-many-arguments
    devnet: Devnet,
    state: Path,
    calls: int,
    poll: float,
    mech: str,
    way: str,
    *extra: str,
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
                # the way in the prompt: each way's calls are new requests, never
                # an earlier way's found on chain and resumed unpaid
                {"prompt": f"benchmark {way} {mech} question {n}", "temperature": 0.5},
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
    :return: ``{"native" | "olas" | "usdc" | "subscription": mech address}``.
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
) -> Dict[str, List[Dict[str, float]]]:
    """The native mech called off-chain through the devnet stand-in endpoint.

    :param devnet: the seeded devnet.
    :param folder: where the server's state goes.
    :param calls: how many calls.
    :param poll: the server's delivery poll, seconds.
    :param ways: :func:`_mech_per_way`.
    :return: ``{"offchain": rows, "402 prepay": rows}``: prepaid first, then each
        call's price deposited after its 402.
    """
    mech = ways["native"]
    service = next(m for m in devnet.info.mechs if m["address"] == mech)["service_id"]
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    requester = devnet.address("stranger")  # the account mcp --devnet pays from
    with OffchainResponder(devnet.info, [mech]) as endpoint:
        declare_endpoint(devnet, int(service), endpoint.url)
        prepay_native(devnet, requester, calls * price)
        prepaid = anyio.run(
            _calls,
            devnet,
            folder / "state-offchain",
            calls,
            poll,
            mech,
            "offchain",
            "--offchain",
            "only",
        )
        # the prepaid balance is spent: every call now meets a 402 first
        after_402 = anyio.run(
            _calls,
            devnet,
            folder / "state-402",
            calls,
            poll,
            mech,
            "402 prepay",
            "--offchain",
            "only",
            "--auto-prepay",
            f"native={price}",
            "--max-spend",
            f"native={price * calls}",
        )
    return {"offchain": prepaid, "402 prepay": after_402}


def _prepay(devnet: Devnet, folder: Path, ways: Dict[str, str], calls: int) -> None:
    """Deposit ``calls`` prices for the native and USDC mechs; mint the credits.

    :param devnet: the devnet.
    :param folder: where the prepay journal goes.
    :param ways: :func:`_mech_per_way`.
    :param calls: calls per way.
    """
    market = Marketplace(
        devnet.info.rpc_url,
        devnet.info.contracts["MechMarketplace"],
        str(devnet.info.accounts["stranger"]["private_key"]),
    )
    prepayer = Prepayer(market, folder / "prepay-state")
    kinds = {t.name: t.payment_type for t in KNOWN_TERMS}
    for way, kind in (("native", "native"), ("usdc", "token_usdc")):
        price = devnet.mech(ways[way]).functions.maxDeliveryRate().call()
        prepayer.deposit(kinds[kind], price * calls, None)
    price = devnet.mech(ways["subscription"]).functions.maxDeliveryRate().call()
    devnet.mint_credits(market.requester, price * calls)


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
                runs = [(w, ways[w]) for w in ("native", "olas", "usdc")]
                for way, mech in runs:
                    state = Path(folder) / f"state-{way}"
                    rows[way] = anyio.run(_calls, devnet, state, calls, poll, mech, way)
                _prepay(devnet, Path(folder), ways, calls)
                later = (
                    ("native prepaid", ways["native"]),
                    ("USDC prepaid", ways["usdc"]),
                    ("subscription", ways["subscription"]),
                )
                for way, mech in later:
                    state = Path(folder) / f"state-{way.replace(' ', '-')}"
                    rows[way] = anyio.run(_calls, devnet, state, calls, poll, mech, way)
            rows.update(_offchain_calls(devnet, Path(folder), calls, poll, ways))
    print(
        f"{calls} paid tools/call of {TOOL} per payment way, delivery poll {poll} s "
        "(anvil, kubo, 2 cores); median / max ms"
    )
    print(f"{'phase':<14}" + "".join(f"{way:>18}" for way in rows))
    for phase in PHASES + ("client_total",):
        cells = []
        for way_rows in rows.values():
            values = [row.get(phase, 0.0) * 1000 for row in way_rows]
            cells.append(f"{statistics.median(values):.1f} / {max(values):.1f}")
        print(f"{phase:<14}" + "".join(f"{cell:>18}" for cell in cells))


if __name__ == "__main__":
    main(
        int(sys.argv[1]) if len(sys.argv) > 1 else 10,
        float(sys.argv[2]) if len(sys.argv) > 2 else 0.25,
    )
