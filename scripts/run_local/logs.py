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

"""Read what the agents logged: when each catalogue was agreed (for timings and tests)."""

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import List

#: logged by tool_metadata_abci when FetchManifestsRound ends with an agreed catalogue
PUBLISHED = re.compile(
    r"^\[(?P<time>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\] \[INFO\] \[[^\]]+\] catalogue (?P<digest>[0-9a-f]{64}) exposed"
)
ENTERED_PERIOD = re.compile(
    r"^\[(?P<time>[^\]]+)\] \[INFO\] \[[^\]]+\] Entered in the 'registry_snapshot_round' round for period (?P<period>\d+)"
)


@dataclass(frozen=True)
class CatalogueAgreed:
    """One agreed catalogue in an agent's log.

    :param at: local wall-clock time of the log line.
    :param digest: the catalogue digest.
    """

    at: datetime
    digest: str


def _time(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S,%f")


def agreed_catalogues(log_path: Path) -> List[CatalogueAgreed]:
    """Every "catalogue <digest> exposed" line of an agent's output, in order.

    :param log_path: the agent's stdout/stderr file.
    :return: the agreements (empty when the file does not exist yet).
    """
    if not log_path.exists():
        return []
    found = []
    seen = set()
    for line in log_path.read_text(errors="replace").splitlines():
        match = PUBLISHED.match(line)
        if match and line not in seen:  # aea may log a line to two handlers
            seen.add(line)
            found.append(CatalogueAgreed(_time(match["time"]), match["digest"]))
    return found


def period_starts(log_path: Path) -> List[datetime]:
    """When the agent entered ``registry_snapshot_round`` of each period (first time only).

    :param log_path: the agent's stdout/stderr file.
    :return: one time per period, in order.
    """
    if not log_path.exists():
        return []
    starts = {}
    for line in log_path.read_text(errors="replace").splitlines():
        match = ENTERED_PERIOD.match(line)
        if match and int(match["period"]) not in starts:
            starts[int(match["period"])] = _time(match["time"])
    return [starts[period] for period in sorted(starts)]
