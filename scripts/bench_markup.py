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


"""Benchmark: ``Markup.inert`` and ``Markup.kinds`` on hostile shapes of text, against prose.

Not a test (performance is measured here, never asserted). ``inert`` runs on every
manifest text and every answer before any cap (``untrusted_text.for_model``), and
``kinds`` on every manifest text (``render_hidden_kinds``) and every delivered answer
(``results.visible_text``), so anyone can hand them megabytes: their rules must stay
linear. For each shape and each of the two, at two sizes, prints the best time of
``--rounds`` runs, its ratio to prose of the same size (the baseline of the same run),
and the growth from the small size to the large one (10 when linear). The link shapes
are the adversarial review adv29i's: its link-title pattern backtracked over 4,096
characters at every ``](`` (13.6 s for 1 MiB of ``[a](<b``); the nesting and container
shapes are for the patterns adv29j asked for (destinations with balanced parentheses,
definitions in containers); the last three are adv29l's (destinations over escaped
line breaks, link texts whose visibility is decided after decoding references).

Usage::

    python scripts/bench_markup.py [--size 1000000] [--rounds 3]
"""

import argparse
import sys
import time
from pathlib import Path
from typing import Callable, Dict, Tuple

sys.path.insert(
    0, str(Path(__file__).resolve().parent.parent / "libs" / "mech-catalogue-core")
)

from mech_catalogue_core.model.untrusted_text import (  # noqa: E402 # pylint: disable=wrong-import-position
    MARKUP,
    inert_markup,
)

#: what is timed: name -> (the function of one text, the shape it is compared with).
#: ``kinds`` returns at once for a text with no ``<``, ``[`` or ``&``, so its baseline
#: is prose with a link in each sentence
MEASURED: Dict[str, Tuple[Callable[[str], object], str]] = {
    "inert": (inert_markup, "prose (baseline)"),
    "kinds": (MARKUP.kinds, "prose with links"),
}

#: shape name -> a text of that shape, at least ``size`` characters (cut to ``size``)
SHAPES: Dict[str, Callable[[int], str]] = {
    "prose (baseline)": lambda n: "The tool returns a forecast for a city. "
    * (n // 40 + 1),
    "prose with links": lambda n: "See [the docs](https://example.org/a) for it. "
    * (n // 46 + 1),
    "table rows": lambda n: "a | b\n:--\n" * (n // 10 + 1),
    "header and row pairs": lambda n: "|\n-\n" * (n // 4 + 1),
    "long lines of pipes": lambda n: ("|" * 5000 + "x\n") * (n // 5002 + 1),
    "long header, long row": lambda n: ("|" * 5000 + "\n" + "-" * 4999 + "x\n")
    * (n // 10002 + 1),
    "references to $ and \\": lambda n: "&#36;&#x5c;&dollar;&bsol; " * (n // 26 + 1),
    "backticks and brackets": lambda n: "```[<a " * (n // 7 + 1),
    "unclosed links ([]()": lambda n: "[](" * (n // 3 + 1),
    "unclosed pointy links": lambda n: "[a](<b" * (n // 6 + 1),
    "links, escapes in <>": lambda n: "[](<\\a" * (n // 6 + 1),
    "links, spaces, no title": lambda n: ("[](" + " " * 63 + "a") * (n // 67 + 1),
    "named references": lambda n: ("&" + "a" * 31) * (n // 32 + 1),
    # adv29j: destinations nesting parentheses, and definitions behind containers
    "unclosed links, a title": lambda n: ' "' + "[](" * (n // 3 + 1),
    "links, nested (": lambda n: ("[](" + "(" * 33) * (n // 36 + 1),
    "links, balanced, no title": lambda n: "[a](x(y)z" * (n // 9 + 1),
    "links, escaped ] and (": lambda n: "[a](x\\](" * (n // 8 + 1),
    "pointy, then parentheses": lambda n: "[a](<b](c" * (n // 9 + 1),
    "labels over lines": lambda n: "> - [a\\[\n" * (n // 10 + 1),
    "container markers": lambda n: ("> - 1. " * 500 + "[a\n") * (n // 3503 + 1),
    # adv29l: escaped line breaks in destinations, link texts decided after decoding
    "escaped breaks, a title": lambda n: ' "' + "[a](b\\\n> " * (n // 9 + 1),
    "link texts shown": lambda n: "[&#32;\\*](x) " * (n // 14 + 1),
    "link texts unclosed": lambda n: "[ &#32;*_`\\" * (n // 12 + 1),
}


def best_of(rounds: int, function: Callable[[str], object], text: str) -> float:
    """Best wall time of ``function(text)`` over ``rounds`` runs, in milliseconds.

    :param rounds: how many runs.
    :param function: what is timed.
    :param text: the text.
    :return: milliseconds.
    """
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        function(text)
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main() -> None:
    """Print each shape's times, its ratio to prose and its growth with size."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="characters")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    small, large = args.size // 10, args.size
    for measured, (function, compared) in MEASURED.items():
        times = {
            name: (
                best_of(args.rounds, function, make(small)[:small]),
                best_of(args.rounds, function, make(large)[:large]),
            )
            for name, make in SHAPES.items()
        }
        baseline = times[compared][1]
        print(f"{measured:26} {small:>9,} ch {large:>11,} ch  x prose  growth")
        for name, (at_small, at_large) in times.items():
            print(
                f"{name:26} {at_small:9.1f} ms {at_large:11.1f} ms  "
                f"{at_large / max(baseline, 1e-3):7.1f}  "
                f"{at_large / max(at_small, 1e-3):6.1f}"
            )


if __name__ == "__main__":
    main()
