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

"""Benchmark: the structured value's check before and after adv29o's kinds, per 1 MB.

Not a test (performance is measured here, never asserted). ``answers.hidden_in_value``
runs ``markup.structure_kinds`` on every string of every structured answer; adv29o
added the links that go elsewhere than they show and the commands in TeX math. The
code before is read from a git revision (``--before``, default ``main``) and both run
alternately in the same process on the same values: the best of ``--rounds`` runs per
round, the best of ``--repeat`` rounds, and the ratio after / before.

Usage::

    python scripts/bench_structure_kinds.py [--size 1000000] [--rounds 3] [--before main]
"""

import argparse
import importlib.util
import subprocess  # nosec: git, with fixed arguments
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Dict, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "libs" / "mech-catalogue-core"))
sys.path.insert(0, str(ROOT))

from mech_catalogue_cli.mcp_server import (  # noqa: E402 # pylint: disable=wrong-import-position
    answers,
)

MARKUP_PATH = "libs/mech-catalogue-core/mech_catalogue_core/model/markup.py"


def _strings(piece: str, size: int) -> Any:
    """A structured value of many short strings, ``size`` characters in all.

    :param piece: one string.
    :param size: characters in all.
    :return: ``{"items": [piece, ...]}``.
    """
    return {"items": [piece] * (size // len(piece) + 1)}


def _one(piece: str, size: int) -> Any:
    """A structured value of one string of ``piece`` repeated to ``size`` characters.

    :param piece: what is repeated.
    :param size: characters.
    :return: ``{"result": text}``.
    """
    return {"result": (piece * (size // len(piece) + 1))[:size]}


VALUES: Dict[str, Callable[[int], Any]] = {
    "prose strings with a URL (baseline)": lambda n: _strings(
        "The forecast is at https://example.org/forecast/1234 for today. ", n
    ),
    "one prose string": lambda n: _one("The tool returns a forecast for a city. ", n),
    "prose with dollar amounts": lambda n: _one("It costs $5 and $10 today. ", n),
    "links showing their target": lambda n: _one(
        "[https://e.org/a](https://e.org/a) ", n
    ),
    "plain math, no command": lambda n: _one("$x^2 + y_1$ and \\(a+b\\) ", n),
    "unclosed links [](": lambda n: _one("[](", n),
    "unclosed links [a](": lambda n: _one("[a](", n),
    "unclosed \\( openings": lambda n: _one("\\(", n),
    "unclosed \\[ openings": lambda n: _one("\\[x", n),
    "dollars and backslashes": lambda n: _one("$\\", n),
    "\\( and \\[ interleaved": lambda n: _one("\\(a\\[b", n),
    "escaped dollars": lambda n: _one("\\$", n),
    "math spans with a command": lambda n: _one("$\\phantom{x}$ ", n),
}


def _before(revision: str) -> ModuleType:
    """The markup module as it was at ``revision``.

    :param revision: a git revision of this repository.
    :return: the module, loaded from a temporary copy.
    """
    source = subprocess.run(  # nosec: fixed command, revision from the command line
        ["git", "show", f"{revision}:{MARKUP_PATH}"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
        handle.write(source)
    spec = importlib.util.spec_from_file_location("markup_before", handle.name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _best(rounds: int, value: Any, kinds: Callable[[str], Any]) -> float:
    """Best wall time of ``hidden_in_value(value)`` with ``kinds`` as its structure check.

    :param rounds: how many runs.
    :param value: the structured value.
    :param kinds: the ``structure_kinds`` used.
    :return: milliseconds.
    """
    answers.structure_kinds = kinds  # type: ignore[assignment]
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        answers.hidden_in_value(value)
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main() -> None:
    """Print each value's time before and after, and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="characters")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=2, help="alternating rounds")
    parser.add_argument("--before", default="main", help="git revision of before")
    args = parser.parse_args()
    after = answers.structure_kinds
    before = _before(args.before).structure_kinds
    print(
        f"{'value (' + format(args.size, ',') + ' ch)':40} before ms  after ms  ratio"
    )
    for name, make in VALUES.items():
        value = make(args.size)
        times: Dict[str, Tuple[float, ...]] = {"before": (), "after": ()}
        for _ in range(args.repeat):
            times["before"] += (_best(args.rounds, value, before),)
            times["after"] += (_best(args.rounds, value, after),)
        old, new = min(times["before"]), min(times["after"])
        print(f"{name:40} {old:9.1f} {new:9.1f} {new / max(old, 1e-3):6.2f}")
    answers.structure_kinds = after  # type: ignore[assignment]


if __name__ == "__main__":
    main()
