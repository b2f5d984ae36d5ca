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

"""Report a mutmut 3 run: kill rate per mutated module and every surviving mutant.

Reads the ``mutants/<module>.py.meta`` files ``mutmut run`` leaves (``exit_code_by_key``:
mutant name -> the exit code of the tests run against it). A mutant counts as killed when
the tests failed or ran out of their CPU time; "no tests" (no unit test reaches the function) and
"survived" count against the rate; mutants not run yet (a narrowed run) are left out.

Usage: ``python scripts/mutation_report.py [--min PERCENT]`` from the repository root;
exit code 1 when the overall rate is under ``--min`` (default 0: report only).
"""

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional, Tuple

KILLED = {1: "killed", 3: "killed", -24: "timeout", 24: "timeout", 36: "timeout"}
# mutmut caps each mutant's CPU time: SIGXCPU (-24), then SIGKILL (-9) a second later
KILLED.update({152: "timeout", 255: "timeout", -9: "timeout"})
NOT_KILLED = {0: "survived", 5: "no tests", 33: "no tests", 35: "suspicious"}


def status(code: Optional[int]) -> str:
    """Name a mutmut exit code.

    :param code: the exit code (None: not run).
    :return: killed, timeout, survived, no tests, suspicious, not checked or other.
    """
    if code is None:
        return "not checked"
    return KILLED.get(code) or NOT_KILLED.get(code) or f"other ({code})"


def read(root: Path) -> Dict[str, Dict[str, Optional[int]]]:
    """Read every meta file.

    :param root: the ``mutants`` folder.
    :return: module path -> mutant name -> exit code.
    """
    return {
        str(meta.relative_to(root))[: -len(".meta")]: json.loads(meta.read_text())[
            "exit_code_by_key"
        ]
        for meta in sorted(root.rglob("*.py.meta"))
    }


def summarise(
    results: Dict[str, Dict[str, Optional[int]]],
) -> Tuple[List[Tuple[str, Counter]], List[Tuple[str, str]]]:
    """Count statuses per module and list the mutants not killed.

    :param results: from :func:`read`.
    :return: (module, status counts) rows and (mutant, status) survivors.
    """
    rows, survivors = [], []
    for module, codes in results.items():
        counts: Counter = Counter(status(code) for code in codes.values())
        rows.append((module, counts))
        survivors += [
            (name, status(code))
            for name, code in sorted(codes.items())
            if code is not None and status(code) not in ("killed", "timeout")
        ]
    return rows, survivors


def main() -> int:
    """Print the report.

    :return: the exit code.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path("mutants"))
    parser.add_argument("--min", type=float, default=0.0, help="least overall kill %%")
    args = parser.parse_args()
    if not args.root.is_dir():
        print(f"no {args.root}/ folder: run `make mutation` first", file=sys.stderr)
        return 1
    rows, survivors = summarise(read(args.root))
    total_killed = total_run = 0
    print(f"{'module':<72} {'run':>5} {'killed':>6} {'rate':>6}  not killed")
    for module, counts in rows:
        run = sum(n for s, n in counts.items() if s != "not checked")
        killed = counts["killed"] + counts["timeout"]
        total_killed, total_run = total_killed + killed, total_run + run
        if not run:
            continue
        rest = ", ".join(
            f"{s} {n}"
            for s, n in sorted(counts.items())
            if s not in ("killed", "timeout", "not checked")
        )
        print(f"{module:<72} {run:>5} {killed:>6} {100 * killed / run:>5.1f}%  {rest}")
    rate = 100 * total_killed / total_run if total_run else 0.0
    print(f"{'all':<72} {total_run:>5} {total_killed:>6} {rate:>5.1f}%")
    for name, what in survivors:
        print(f"  {what:<11} {name}")
    return 0 if rate >= args.min else 1


if __name__ == "__main__":
    sys.exit(main())
