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

"""Benchmark of what a listing adds to say which mechs go last for a revert (fix29z).

Not a test (performance is measured, not asserted). ``tools/list`` decorates every tool
it lists with the offers a call tries last (``MechToolServer._with_tried_last``): before
fix29z, :func:`~mech_catalogue_cli.mcp_server.unsettled.tried_last_meta` only (mechs
that did not settle); now also :meth:`~mech_catalogue_cli.mcp_server.refused_offers.RevertingMechs.listed`
(mechs whose request reverted for the marketplace). Timed over ``--tools`` tools of
``--offers`` offers each (every tool listed once, as a client paging through all), for
each count of remembered reverting mechs in ``--reverting`` (the first of them offering
every tool), best of ``--rounds``:

- ``before``: ``tried_last_meta`` alone;
- ``now``: ``tried_last_meta`` and ``RevertingMechs.listed``.

Printed: milliseconds each and the ratio now/before of this one run.

Usage::

    python scripts/bench_reverting_last.py [--tools 20000] [--offers 3]
        [--reverting 0 100 10000] [--rounds 3]
"""

import argparse
import sys
import time
from pathlib import Path
from typing import Callable, List, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# pylint: disable=wrong-import-position
from mech_catalogue_cli.mcp_server.offers import Offer  # noqa: E402
from mech_catalogue_cli.mcp_server.refused_offers import (  # noqa: E402
    RevertingMechs,
    revert_refusal,
)
from mech_catalogue_cli.mcp_server.unsettled import tried_last_meta  # noqa: E402
from tests.test_mcp_offer_choice import offer  # noqa: E402

#: the server's --timeout, seconds
BOUND = 60.0


def best_of(rounds: int, run: Callable[[], object]) -> float:
    """The fastest of ``rounds`` runs, milliseconds."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        run()
        times.append((time.perf_counter() - started) * 1000)
    return min(times)


def main(argv: Sequence[str] = ()) -> None:
    """Print the table.

    :param argv: command-line arguments (see the module docstring).
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tools", type=int, default=20_000)
    parser.add_argument("--offers", type=int, default=3)
    parser.add_argument("--reverting", type=int, nargs="+", default=[0, 100, 10_000])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(list(argv) or None)
    hostile = "0x" + "bb" * 20
    tools: List[List[Offer]] = [
        [offer(hostile, 1)]
        + [offer(f"0x{n:036x}{k:04x}", 2) for k in range(args.offers - 1)]
        for n in range(args.tools)
    ]
    print("| reverting mechs | before ms | now ms | now / before |")
    print("|---:|---:|---:|---:|")
    for count in args.reverting:
        mechs = RevertingMechs()
        for n in range(count):
            mech = hostile if n == 0 else f"0x{n:040x}"
            mechs.remember(revert_refusal(mech, "at its gas estimate", "no reason"))

        def before() -> None:
            for offers in tools:
                tried_last_meta(offers, {}, BOUND)

        def now(mechs: RevertingMechs = mechs) -> None:
            for offers in tools:
                tried_last_meta(offers, {}, BOUND) + mechs.listed(offers)  # pylint: disable=expression-not-assigned  # fmt: skip

        old, new = best_of(args.rounds, before), best_of(args.rounds, now)
        print(f"| {count:,} | {old:,.1f} | {new:,.1f} | {new / old:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
