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

"""The views-bloat attack (``scripts/adversary/views_bloat.py``) on a running agent.

One agent (``scripts.run_local``, the abci connection's mock Tendermint) on a seeded
devnet, plus N attacking services registered with real transactions, each pointing at its
own 131 KB manifest of 1,000 distinct 128-character tool names. Every period one attacking
service flips between two such manifests (one ``changeHash``: churn), so the views change
and ``ShareViewsRound`` re-shares the whole document. After the first period, an honest
seeded service publishes a manifest with a new tool: the script records when it appears
in ``GET /tools`` (exposed at the end of ``FetchManifestsRound``) and in ``mech_tools``
(``GET /synchronized_data``, written after the last chunk).

Run: ``PYTHONPATH=$PWD nice -n 10 .venv/bin/python -m scripts.adversary.views_bloat_agent 20``
(work folder ``.run/adversary/views_bloat``; stops what it started). Prints, per period:
seconds in each round, ``ShareViewsRound`` rounds, the agent's RSS.
"""

import json
import re
import sys
import time
from collections import defaultdict
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Tuple, TypeVar

import requests

from scripts.adversary.views_bloat import attack_manifest
from scripts.bench_sync import change_hashes, create_services
from scripts.devnet import Devnet
from scripts.run_local.runner import AgentProcess, LocalRun

WORK = Path(".run/adversary/views_bloat").resolve()
ENTERED = re.compile(
    r"^\[(?P<time>[^\]]+)\] \[INFO\] \[[^\]]+\] Entered in the '(?P<round>[a-z_]+)' round for period (?P<period>\d+)"
)
PROBE = "adversary-honest-probe"
Prepared = TypeVar("Prepared")


@contextmanager
def one_agent(
    work: Path, prepare: Callable[[Devnet], Prepared]
) -> Iterator[Tuple[Devnet, AgentProcess, Prepared]]:
    """A seeded devnet, ``prepare`` run on it, then one agent (10 s pauses); both stopped after.

    :param work: the work folder (the devnet's state goes in ``work/devnet``).
    :param prepare: registers the attack before the agent starts; its result is yielded.
    :yield: the devnet, the agent's process and what ``prepare`` returned.
    """
    work.mkdir(parents=True, exist_ok=True)
    devnet = Devnet.start(seed=True, state_dir=work / "devnet")
    run = None
    try:
        prepared = prepare(devnet)
        run = LocalRun(
            agents=1,
            work_dir=work,
            devnet=devnet,
            settings={"RESET_PAUSE_DURATION": "10"},
        )
        run.start()
        yield devnet, run.processes[0], prepared
    finally:
        if run is not None:
            run.stop()
        devnet.stop()


def rounds_by_period(log: Path) -> Dict[int, List[Tuple[datetime, str]]]:
    """Round entries of the agent's log, per period.

    :param log: the agent's output file.
    :return: period -> [(time, round name)] in order.
    """
    found: Dict[int, List[Tuple[datetime, str]]] = defaultdict(list)
    seen = set()
    for line in log.read_text(errors="replace").splitlines():
        match = ENTERED.match(line)
        if match and line not in seen:
            seen.add(line)
            at = datetime.strptime(match["time"], "%Y-%m-%d %H:%M:%S,%f")
            found[int(match["period"])].append((at, match["round"]))
    return found


def period_figures(
    entries: List[Tuple[datetime, str]], end: datetime
) -> Dict[str, object]:
    """Seconds per round kind and rounds of ShareViewsRound in one period.

    :param entries: the period's round entries.
    :param end: when the next period began.
    :return: the figures.
    """
    seconds: Dict[str, float] = defaultdict(float)
    for (at, name), (nxt, _) in zip(entries, entries[1:] + [(end, "")]):
        seconds[name] += (nxt - at).total_seconds()
    return {
        "period_s": round((end - entries[0][0]).total_seconds(), 1),
        "share_views_rounds": sum(1 for _, n in entries if n == "share_views_round"),
        "seconds": {k: round(v, 1) for k, v in seconds.items()},
    }


def rss_mib(pid: int) -> float:
    """Resident memory of a process.

    :param pid: the process id.
    :return: MiB (0 when it is gone).
    """
    try:
        for line in (
            Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines()
        ):
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return 0.0


def register_attackers(devnet: Devnet, count: int) -> Tuple[int, bytes, bytes]:
    """Create ``count`` services with their own near-cap manifests.

    :param devnet: the devnet.
    :param count: attacking services.
    :return: the first attacking service id and the two digests it flips between.
    """
    first = create_services(devnet, count)[0]
    digests = {
        first + i: devnet.add_manifest(attack_manifest(i))[1] for i in range(count)
    }
    change_hashes(devnet, digests, devnet.address("owner_1"))
    other = devnet.add_manifest(attack_manifest(count))[1]
    return first, digests[first], other


def honest_probe(devnet: Devnet) -> None:
    """The seeded service 1 publishes a manifest with one new tool (``PROBE``).

    :param devnet: the devnet.
    """
    data = json.dumps(
        {"name": "honest", "description": "an honest update", "tools": [PROBE]}
    ).encode()
    change_hashes(devnet, {1: devnet.add_manifest(data)[1]}, devnet.address("owner_1"))


def main(  # pylint: disable=too-many-locals,too-many-branches,too-many-statements
    attackers: int, periods: int = 3
) -> None:
    """Run the agent under the attack for a few periods and print the figures.

    :param attackers: attacking services.
    :param periods: full periods to measure after the first.
    :raises RuntimeError: when the agent stops.
    """
    with one_agent(WORK, lambda devnet: register_attackers(devnet, attackers)) as (
        devnet,
        agent,
        (flipper, one, two),
    ):
        began = time.monotonic()
        probe_sent = 0.0
        seen_http = seen_db = 0.0
        flipped_for = 0
        deadline = began + 1800
        while time.monotonic() < deadline:
            time.sleep(2)
            if not agent.alive():
                raise RuntimeError(f"the agent stopped; see {agent.log_path}")
            by_period = rounds_by_period(agent.log_path)
            current = max(by_period, default=-1)
            if current > flipped_for and current >= 1:
                flipped_for = current
                change_hashes(
                    devnet,
                    {flipper: two if current % 2 else one},
                    devnet.address("owner_1"),
                )
                if not probe_sent:
                    honest_probe(devnet)
                    probe_sent = time.monotonic()
            if probe_sent and not seen_http:
                try:
                    if requests.get(f"{agent.http_url}/tools/{PROBE}", timeout=30).ok:
                        seen_http = time.monotonic() - probe_sent
                except requests.RequestException:
                    pass
            if probe_sent and not seen_db:
                try:
                    data = requests.get(
                        f"{agent.http_url}/synchronized_data", timeout=60
                    ).json()
                    if PROBE in data.get("mech_tools", []):
                        seen_db = time.monotonic() - probe_sent
                except (requests.RequestException, ValueError):
                    pass
            print(
                json.dumps(
                    {
                        "t_s": round(time.monotonic() - began),
                        "period": current,
                        "rss_mib": rss_mib(agent.pid or 0),
                        "probe_in_http_s": round(seen_http, 1),
                        "probe_in_mech_tools_s": round(seen_db, 1),
                    }
                ),
                flush=True,
            )
            if current >= periods + 1 and seen_db:
                break
        by_period = rounds_by_period(agent.log_path)
        ordered = sorted(by_period)
        for period, nxt in zip(ordered, ordered[1:]):
            figures = period_figures(by_period[period], by_period[nxt][0][0])
            print(json.dumps({"period": period, **figures}), flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
