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

"""Benchmark: listing a catalogue whose tools many mechs offer, before and after adv29v.

Not a test (performance is measured here, never asserted). Since adv29v each listing
bounds what other registrants add to a Tool's ``_meta`` (``source._with_offers``: the
best offers by the server's ranking, the mech lists cut), measures the Tool without
``_meta`` against the cap, keeps each served name on its mech tool
(``served_names.ServedNames``) and puts the chosen offer among the listed ones.

The catalogue: ``--tools`` tools (default 100) in manifests of 10, each manifest
registered by ``--copies`` mechs (default 60), one native offer each. Timed as the
server does it (``refresh`` over the direct source's ``served_from_catalogue``): a first
listing, then a relisting where only the chain's facts moved. ``--before`` (a git
revision, default ``main``) runs in a child process in turns with the working tree,
best of ``--rounds``. Usage::

    python scripts/bench_listing_bounds.py [--tools 100] [--copies 60] [--rounds 3]
"""

import argparse
import hashlib
import json
import os
import subprocess  # nosec B404: this script, fixed arguments
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List

from scripts.bench_listing_checks import (
    ROOT,
    _extracted,
    priced_catalogue,
    server_over,
)

#: the listings timed, in order
LISTINGS = ("first listing", "facts moved")


def _manifest(start: int) -> bytes:
    tools = [
        {
            "name": f"tide-{start + at}",
            "description": f"Tides of port {start + at}.",
            "kwargs": [{"identifier": "port", "type": "str", "description": "port"}],
        }
        for at in range(10)
    ]
    return json.dumps({"name": f"Tides {start}", "tools": tools}).encode()


def _catalogue(  # pylint: disable=too-many-locals
    tools: int, copies: int, requests: int
) -> Any:
    """``tools`` tools, each manifest registered by ``copies`` mechs, one offer each.

    :param tools: tools (a multiple of 10).
    :param copies: mechs registering each manifest.
    :param requests: each offer's request count (the chain's facts).
    :return: the catalogue, marketplace facts attached.
    """
    # pylint: disable=import-outside-toplevel
    from mech_catalogue_core.catalogue.fetching import FetchResult
    from mech_catalogue_core.chain.registry import DigestRead
    from mech_catalogue_core.model.tool import MechRef

    registry = "0x" + "11" * 20
    reads, fetched = [], {}
    for manifest in range(tools // 10):
        data = _manifest(manifest * 10)
        digest = "0x" + hashlib.sha256(data).hexdigest()
        fetched[digest] = FetchResult.ok(digest, "bafk", data)
        for copy in range(copies):
            mech_id = manifest * copies + copy + 1
            reads.append(
                DigestRead(
                    MechRef(100, "legacy_mech_registry", registry, mech_id), digest
                )
            )

    return priced_catalogue(reads, fetched, requests)


def run_here(tools: int, copies: int) -> Dict[str, float]:
    """Time the listings with the code on ``sys.path``.

    :param tools: tools of the catalogue.
    :param copies: mechs registering each manifest.
    :return: listing -> seconds, and the listed tools' ``tools/list`` bytes.
    """
    catalogues = [_catalogue(tools, copies, 0), _catalogue(tools, copies, 1)]
    server = server_over(catalogues)
    times: Dict[str, float] = {}
    for name in LISTINGS:
        start = time.perf_counter()
        assert server.refresh()
        times[name] = time.perf_counter() - start
    times["listed"] = len(server.listed.tools)
    times["listed bytes"] = sum(len(json.dumps(t.tool)) for t in server.listed.tools)
    return times


def _child(tree: Path, tools: int, copies: int) -> Dict[str, float]:
    environment = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(
            [str(tree), str(tree / "libs/mech-catalogue-core"), str(ROOT)]
        ),
    )
    out = subprocess.run(  # nosec B603: this interpreter and this script
        [sys.executable, str(Path(__file__).resolve()), "--child", f"{tools},{copies}"],
        cwd=tree,
        env=environment,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return dict(json.loads(out.splitlines()[-1]))


def main() -> None:
    """Print the figures (or, with ``--child``, one run's as JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--tools", type=int, default=100)
    parser.add_argument("--copies", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", default="main", help="git revision compared with")
    parser.add_argument("--child", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        tools, copies = (int(part) for part in args.child.split(","))
        print(json.dumps(run_here(tools, copies)))
        return
    with tempfile.TemporaryDirectory() as folder:
        before_tree = _extracted(args.before, Path(folder))
        runs: List[Dict[str, Dict[str, float]]] = []
        for _ in range(args.rounds):
            runs.append(
                {
                    "before": _child(before_tree, args.tools, args.copies),
                    "after": _child(ROOT, args.tools, args.copies),
                }
            )
    label = f"{args.tools} tools x {args.copies} mechs"
    print(f"{label:28} {'before':>10} {'after':>10} ratio")
    for name in (*LISTINGS, "listed", "listed bytes"):
        before = min(run["before"][name] for run in runs)
        after = min(run["after"][name] for run in runs)
        print(
            f"{name:28} {before:10.2f} {after:10.2f} {after / max(before, 1e-9):5.2f}"
        )


if __name__ == "__main__":
    main()
