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

"""Benchmark of which mechs go last: settled requests indexed vs compared pairwise.

Not a test (performance is measured, not asserted). Records are built as
``spending.read_record`` gives them (adversarial review adv29l): ``--settled`` delivered
off-chain calls of an honest mech (default 50,000) and, for each count of
``--given-up`` (default 100 and 1,000), that many acceptances of another mech never
settled, in the window and past their bound. Timed, best of ``--rounds``:

- ``now``: :func:`mech_catalogue_cli.mcp_server.unsettled.given_up_mechs`, the
  settled requests indexed once (``unsettled.SettledIndex``);
- ``before``: :func:`pairwise_given_up_mechs`, the check before adv29l re-enacted here as
  the baseline (each given-up acceptance against every settled request).

Printed: milliseconds each, the ratio before/now of this one run, and each one's growth
from the first given-up count to the last.

Usage::

    python scripts/bench_tried_last.py [--settled 50000] [--given-up 100 1000]
        [--rounds 3]
"""

import argparse
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# pylint: disable=wrong-import-position
from mech_catalogue_cli.mcp_server.outstanding import (  # noqa: E402
    Hold,
    give_up_at,
    given_up,
)
from mech_catalogue_cli.mcp_server.spend_cap import PaidRecord  # noqa: E402
from mech_catalogue_cli.mcp_server.unsettled import given_up_mechs  # noqa: E402

#: the server's --timeout, seconds (each acceptance's bound)
BOUND = 60.0
#: seconds an acceptance is remembered (the default --spend-window)
PERIOD = 86_400.0
HONEST, HOSTILE = "0x" + "aa" * 20, "0x" + "bb" * 20


def pairwise_given_up_mechs(
    records: Sequence[PaidRecord], now: float, default_bound: float, period: float
) -> Dict[str, Hold]:
    """``unsettled.given_up_mechs`` as it was before adv29l: the baseline (pure).

    :param records: the journal's records.
    :param now: unix seconds.
    :param default_bound: the server's ``--timeout``, seconds.
    :param period: seconds an acceptance is remembered.
    :return: lowercase mech address -> its latest acceptance given up unsettled.
    """
    since = now - period
    settled = [hold for record in records for hold in record.settled]
    found: Dict[str, Hold] = {}
    for record in records:
        for hold in record.acceptances:
            if hold.since <= 0 or not since <= hold.since <= now:
                continue
            if not given_up(hold, now, default_bound):
                continue
            end = give_up_at(hold, default_bound)
            seen = record.passed_seen_at
            if seen is not None and seen <= end:
                continue
            if any(
                other.key != hold.key
                and other.nonce == hold.nonce
                and (not other.owner or not hold.owner or other.owner == hold.owner)
                and other.since < end
                for other in settled
            ):
                continue
            mech = hold.mech.lower()
            if mech not in found or found[mech].since < hold.since:
                found[mech] = hold
    return found


def journal(now: float, settled: int, given: int) -> List[PaidRecord]:
    """``settled`` delivered calls of an honest mech, then ``given`` unsettled ones.

    :param now: unix seconds.
    :param settled: delivered off-chain calls (their request settled), two days old.
    :param given: acceptances of the hostile mech, in the window, past their bound.
    :return: the records.
    """

    def record(number: int, mech: str, since: float, is_settled: bool) -> PaidRecord:
        hold = Hold(
            key=f"{number:064x}",
            request_id="0x" + f"{number:064x}",
            nonce=number,
            mech=mech,
            accepted=True,
            since=since,
        )
        return PaidRecord(
            hold.request_id,
            1,
            since,
            asset="native",
            key=hold.key,
            settled=(hold,) if is_settled else (),
            acceptances=() if is_settled else (hold,),
        )

    return [record(number, HONEST, now - 2e5, True) for number in range(settled)] + [
        record(10**9 + number, HOSTILE, now - 3_000.0 - number, False)
        for number in range(given)
    ]


def best_of(
    rounds: int,
    function: Callable[[Sequence[PaidRecord], float, float, float], object],
    records: Sequence[PaidRecord],
    now: float,
) -> float:
    """Best wall time of ``function`` over the records, in milliseconds.

    :param rounds: how many runs.
    :param function: ``given_up_mechs`` or the baseline.
    :param records: the records.
    :param now: unix seconds.
    :return: milliseconds.
    """
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        remembered = function(records, now, BOUND, PERIOD)
        best = min(best, time.perf_counter() - start)
        assert list(remembered) == [HOSTILE]  # type: ignore[call-overload]  # nosec
    return best * 1000


def main() -> None:
    """Print each count's times, the ratio before/now, and the growth of each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--settled", type=int, default=50_000)
    parser.add_argument("--given-up", type=int, nargs="+", default=[100, 1_000])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    now = time.time()
    rows = []
    print(
        f"{'settled x given up':22} {'now ms':>9} {'before ms':>10} {'before/now':>11}"
    )
    for given in args.given_up:
        records = journal(now, args.settled, given)
        ours = best_of(args.rounds, given_up_mechs, records, now)
        before = best_of(args.rounds, pairwise_given_up_mechs, records, now)
        rows.append((ours, before))
        print(
            f"{args.settled:>10,} x {given:<9,} {ours:9.1f} {before:10.1f} "
            f"{before / max(ours, 1e-3):11.1f}"
        )
    if len(rows) > 1:
        print(
            f"growth {args.given_up[0]:,} -> {args.given_up[-1]:,} given up: now "
            f"{rows[-1][0] / max(rows[0][0], 1e-3):.1f}, before "
            f"{rows[-1][1] / max(rows[0][1], 1e-3):.1f}"
        )


if __name__ == "__main__":
    main()
