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

"""Benchmark: letter forms read by name and short secret words read with their qualifier (adv29u).

Not a test (performance is measured here, never asserted). Since adv29u the fold reads
a character's Unicode name before its decomposition (``letter_forms``), and a text
holding ``pin``, ``pk``, ``otp`` or ``2fa`` is read a second time for the words that
make it a secret (``untrusted_text.short_secret_asked``). The fold runs on every text
the checks read; the secret check on every argument of every listed tool.

Compares ``--before`` (a git revision, loaded from ``git show``) with the working
tree's, in the same run: ``folded`` on 1 MB of mixed-script text (caches warm, then
every code point once, cold), and the secret check of ``--tools`` tools' served
schemas (plain prose, prose with a short word, mixed scripts). Prints best-of-
``--rounds`` times and ratios after / before. A text ``--before`` refused (``pin``,
``pk``, ``РК``) was read until its first match; served now, it is read in full.
Usage::

    python scripts/bench_letter_forms.py [--tools 2000] [--rounds 3] [--before main]
"""

import argparse
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Dict, List

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "libs" / "mech-catalogue-core")]

# pylint: disable=wrong-import-position
from mech_catalogue_core.exporters import mcp_tool  # noqa: E402
from mech_catalogue_core.model import letter_forms, untrusted_text  # noqa: E402

from scripts.bench_text_checks import (  # noqa: E402
    _row,
    before_module,
    catalogue,
    paired_ms,
)

#: a paragraph of every script the fold meets: Latin prose, accents, Cyrillic, Greek,
#: Cherokee, CJK, emoji, full-width, mathematical and decorated letters
MIXED = (
    "The forecast for Zürich and Malmö, naïve café. "
    "Налоговый кодекс РК и прогноз погоды. Πρόγνωση καιρού για την Αθήνα. "
    "ᎠᏍᎦᏯ ᏢᏦ. 天气预报和市场价格。 🌧️🌤️ ｆｕｌｌ 𝐦𝐚𝐭𝐡 "
    "🅿🅰🆂🆂 ꝑrivate ᴘʀɪᴠ ᵖʳᶦᵛ ⒫⒜⒮⒮ 🇵🇰 ➋ß\n"
)
#: catalogue name -> a tool description of that kind
DESCRIPTIONS: Dict[str, Callable[[int], str]] = {
    "plain prose": lambda i: f"Tide tables for port {i}, in metres, from the almanac.",
    "a short word (pin, p_k, pk)": lambda i: (
        f"Pin the model version {i}; p_k is the probability of class k, pk of the row."
    ),
    "mixed scripts, no short word": lambda i: f"{MIXED[47:160].replace('РК', '').replace('ᏢᏦ', '')} {i}",
    "mixed scripts (РК, 🇵🇰)": lambda i: f"{MIXED[:160]} {i}",
}


def compare_fold(old: ModuleType, rounds: int) -> None:
    """Print ``folded`` before and after on 1 MB of mixed-script text and every code point.

    :param old: the ``untrusted_text`` of ``--before``.
    :param rounds: runs per figure.
    """
    text = (MIXED * (1_000_000 // len(MIXED) + 1))[:1_000_000]
    _row(
        "folded: 1 MB mixed scripts (warm)",
        *paired_ms(rounds, lambda: old.folded(text), lambda: letter_forms.folded(text)),
    )
    every = [chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c < 0xE000]
    _row(
        "one fold of every code point (cold)",
        *paired_ms(
            rounds,
            lambda: [getattr(old, "_folded_char")(c) for c in every],
            lambda: [getattr(letter_forms, "_folded_char")(c) for c in every],
        ),
    )


def compare_secrets(old: ModuleType, count: int, rounds: int) -> None:
    """Print the served schemas' secret check before and after on three catalogues.

    :param old: the ``untrusted_text`` of ``--before``.
    :param count: tools per catalogue.
    :param rounds: runs per figure.
    """
    for name, describe in DESCRIPTIONS.items():
        tools = catalogue(describe, count)
        served = [mcp_tool.to_mcp_tool(t)["inputSchema"] for t in tools]
        _row(f"{name}: secret_arguments", *_paired_checks(old, served, rounds))


def _paired_checks(old: ModuleType, served: List[Any], rounds: int) -> Any:
    return paired_ms(
        rounds,
        lambda: [old.secret_arguments(s) for s in served],
        lambda: [untrusted_text.secret_arguments(s) for s in served],
    )


def main() -> None:
    """Run the comparison and print it."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tools", type=int, default=2000, help="tools per catalogue")
    parser.add_argument("--rounds", type=int, default=3, help="runs per figure")
    parser.add_argument("--before", default="main", help="git revision compared with")
    arguments = parser.parse_args()
    old = before_module(arguments.before)
    print(f"{'':44} {'before':>13} {'after':>13} {'ratio':>7}")
    compare_fold(old, arguments.rounds)
    compare_secrets(old, arguments.tools, arguments.rounds)


if __name__ == "__main__":
    main()
