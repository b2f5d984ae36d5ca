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

"""Benchmark: the MCP server's listing of a markup-heavy catalogue, before and after perf29c.

Not a test (performance is measured here, never asserted). ``tools/list`` serves what
:meth:`MechToolServer.refresh` composes at each catalogue change: the exporter's Tool
with its text checks (``exporters.mcp_tool.offered_tool``), cleaned once more
(``mcp_tool_for_model``), the refusals (secret arguments, hidden text, reserved names),
the prices, the look-alike flags and the byte cap. Since perf29c a definition's checks
are kept by its digest (``mcp_server.checked_definitions``), so a change of the chain's
facts, or of one tool, no longer checks every definition again.

The catalogue: ``--tools`` tools (default 400) in manifests of 10, each description
10,000 characters of markup, one offer each. Three listings, timed as the server does
them (``refresh`` on a source serving the direct source's ``served_from_catalogue``):

- ``first listing``: a server started afresh (nothing kept);
- ``one tool changed``: the next catalogue, where one manifest's first tool has a new
  description;
- ``unchanged relisting``: the next catalogue, where only the chain's facts moved (each
  offer's request count).

``--before`` (a git revision, default ``main``) is extracted with ``git archive`` and
run in a child process, in turns with the working tree's: both in the same run, best of
``--rounds``. Usage::

    python scripts/bench_listing_checks.py [--tools 400] [--rounds 3] [--before main]
        [--all-tools]
"""

import argparse
import hashlib
import json
import os
import subprocess  # nosec B404: git archive and this script, fixed arguments
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Dict, List

ROOT = Path(__file__).resolve().parent.parent
#: the three listings timed, in order
LISTINGS = ("first listing", "one tool changed", "unchanged relisting")


def _description(index: int, edition: int = 0) -> str:
    return (
        f"<p>Port {index}.{edition}</p> **bold** &#105;tems [a](b) snake_case ü " * 160
    )[:10_000]


def _manifest(start: int, edition: int) -> bytes:
    tools = []
    for at in range(10):
        tools.append(
            {
                "name": f"tide-{start + at}",
                "description": _description(start + at, edition if at == 0 else 0),
                "kwargs": [
                    {"identifier": "port", "type": "str", "description": "the port"},
                    {"identifier": "days", "type": "int", "description": "how many"},
                ],
            }
        )
    return json.dumps({"name": f"Tides {start}", "tools": tools}).encode()


def _catalogue(tools: int, changed: int, requests: int) -> Any:
    """A catalogue of ``tools`` tools, one offer each mech.

    :param tools: tools (a multiple of 10).
    :param changed: editions of the first manifest's first tool (0: the original).
    :param requests: each offer's request count (the chain's facts).
    :return: the catalogue, marketplace facts attached.
    """
    # pylint: disable=import-outside-toplevel
    from mech_catalogue_core.catalogue.fetching import FetchResult
    from mech_catalogue_core.chain.registry import DigestRead
    from mech_catalogue_core.model.tool import MechRef

    registry = "0x" + "11" * 20
    reads, fetched = [], {}
    for mech in range(tools // 10):
        data = _manifest(mech * 10, changed if mech == 0 else 0)
        digest = "0x" + hashlib.sha256(data).hexdigest()
        reads.append(
            DigestRead(MechRef(100, "legacy_mech_registry", registry, mech + 1), digest)
        )
        fetched[digest] = FetchResult.ok(digest, "bafk", data)

    return priced_catalogue(reads, fetched, requests)


def priced_catalogue(reads: List[Any], fetched: Dict[str, Any], requests: int) -> Any:
    """The catalogue of ``reads``, each mech given marketplace facts (price 7 wei).

    :param reads: the registry's digest reads.
    :param fetched: digest -> fetch result.
    :param requests: each offer's request count (the chain's facts).
    :return: the catalogue.
    """
    # pylint: disable=import-outside-toplevel
    from mech_catalogue_core.catalogue.fetching import refresh_catalogue
    from mech_catalogue_core.chain.snapshot import RegistrySnapshot
    from mech_catalogue_core.manifest.parsing import parse_manifest
    from mech_catalogue_core.model.catalogue import Catalogue
    from mech_catalogue_core.model.market import MechFacts

    from mech_catalogue_cli.mcp_server.offers import NATIVE_PAYMENT_TYPE

    def parse(data: bytes) -> Any:
        result = parse_manifest(data)
        return result.manifest, result.problems

    built = refresh_catalogue(RegistrySnapshot.build(20, reads), fetched, parse, None)
    return Catalogue.build(
        replace(
            m,
            marketplace=(
                MechFacts(
                    address="0x" + f"{at + 1:040x}",
                    service_id=at + 1,
                    block=20,
                    confirmed=True,
                    max_delivery_rate=7,
                    payment_type=NATIVE_PAYMENT_TYPE,
                    requests=requests,
                    deliveries=requests,
                    karma=0,
                ),
            ),
        )
        for at, m in enumerate(built.mechs)
    )


def server_over(catalogues: List[Any], all_tools: bool = False) -> Any:
    """An MCP server whose source serves the next of ``catalogues`` at each read.

    :param catalogues: the catalogues, in the order of the server's refreshes.
    :param all_tools: list as ``mcp --all-tools`` does.
    :return: the ``MechToolServer`` (not refreshed yet).
    """
    # pylint: disable=import-outside-toplevel
    from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer
    from mech_catalogue_cli.mcp_server.source import served_from_catalogue

    class Source:  # pylint: disable=too-few-public-methods
        """Serves the next catalogue at each read."""

        at = -1

        def read(self) -> Any:
            """Export the next catalogue as the direct source does.

            :return: the served catalogue.
            """
            self.at += 1
            return served_from_catalogue(catalogues[self.at])

    return MechToolServer(
        Source(), CallSettings("g", "a", all_tools=all_tools), None, None
    )


def run_here(tools: int, all_tools: bool = False) -> Dict[str, float]:
    """Time the three listings with the code on ``sys.path``.

    :param tools: tools of the catalogue.
    :param all_tools: list as ``mcp --all-tools`` does.
    :return: listing -> seconds.
    """
    catalogues = [
        _catalogue(tools, 0, 0),
        _catalogue(tools, 1, 0),
        _catalogue(tools, 1, 1),
    ]
    server = server_over(catalogues, all_tools)
    times = {}
    for name in LISTINGS:
        start = time.perf_counter()
        assert server.refresh()
        times[name] = time.perf_counter() - start
    assert len(server.listed.tools) == tools, len(server.listed.tools)
    return times


def _child(tree: Path, tools: int, all_tools: bool) -> Dict[str, float]:
    """Run :func:`run_here` in a fresh process on the code of ``tree``.

    :param tree: a checkout of the repository.
    :param tools: tools of the catalogue.
    :param all_tools: list as ``mcp --all-tools`` does.
    :return: listing -> seconds.
    """
    environment = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(tree), str(tree / "libs/mech-catalogue-core")]),
    )
    out = subprocess.run(  # nosec B603: this interpreter and this script
        [sys.executable, str(Path(__file__).resolve()), "--child", str(tools)]
        + (["--all-tools"] if all_tools else []),
        cwd=tree,
        env=environment,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return dict(json.loads(out.splitlines()[-1]))


def _extracted(revision: str, into: Path) -> Path:
    archive = subprocess.run(  # nosec B603 B607: fixed git arguments
        ["git", "archive", "--format=tar", revision],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(  # nosec B603 B607: fixed tar arguments
        ["tar", "-x", "-C", str(into)], input=archive, check=True
    )
    packages = ROOT / "packages"
    (into / "packages").mkdir(exist_ok=True)
    for item in packages.iterdir():  # the synced third-party packages are not in git
        target = into / "packages" / item.name
        if not target.exists():
            target.symlink_to(item)
    return into


def main() -> None:
    """Print the figures (or, with ``--child``, one run's as JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--tools", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", default="main", help="git revision compared with")
    parser.add_argument("--all-tools", action="store_true", help="as mcp --all-tools")
    parser.add_argument("--child", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_here(args.child, args.all_tools)))
        return
    with tempfile.TemporaryDirectory() as folder:
        before_tree = _extracted(args.before, Path(folder))
        runs: List[Dict[str, Dict[str, float]]] = []
        for _ in range(args.rounds):
            runs.append(
                {
                    "before": _child(before_tree, args.tools, args.all_tools),
                    "after": _child(ROOT, args.tools, args.all_tools),
                }
            )
    print(
        f"{'listing, ' + str(args.tools) + ' tools':28} {'before s':>9} {'after s':>9} ratio"
    )
    for name in LISTINGS:
        before = min(run["before"][name] for run in runs)
        after = min(run["after"][name] for run in runs)
        print(f"{name:28} {before:9.2f} {after:9.2f} {after / before:5.2f}")


if __name__ == "__main__":
    main()
