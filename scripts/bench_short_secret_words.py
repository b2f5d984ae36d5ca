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

"""Benchmark: the secret check of texts holding a short secret word (adv29x).

Not a test (performance is measured here, never asserted). Since adv29x a text whose
words hold a qualified ``pin``, ``pk``, ``OTP`` or ``2FA`` and a ``*`` or ``~`` between
letters is parsed by markdown-it-py to tell emphasis from a product, and its words of
other scripts are read with their neighbours. ``secret_asked`` runs on every string of
every listed tool's arguments.

Runs ``secret_asked`` over texts of ``--chars`` characters (a short word with many
``p*k`` products, with emphasis pairs, with Greek words, plain prose; and the same at a
tenth of the size: growth 10 when linear) in the working tree and in ``--before`` (a git
revision, its ``libs/mech-catalogue-core`` extracted by ``git archive``), each in its
own interpreter, and prints best-of-``--rounds`` milliseconds and ratios after /
before. Usage::

    python scripts/bench_short_secret_words.py [--chars 10000] [--rounds 5] [--before main]
"""

import argparse
import json
import os
import subprocess  # nosec B404: git archive of a revision and the timed interpreters
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TIMER = r"""
import json, sys, timeit
from mech_catalogue_core.model.untrusted_text import secret_asked
chars, rounds = int(sys.argv[1]), int(sys.argv[2])
unit = {
    "products p*k, your PIN": "your PIN and p*k, q*r; ",
    "emphasis pairs, your PIN": "your PIN and *p*k* q*r*s; ",
    "a p*k a line, your PIN": "your PIN\np*k *q*r\n",
    "Greek words, your PIN": "your PIN \u03b1\u03b2\u03b3 \u03a1\u0399\u039d \u03b4; ",
    "plain prose, your PIN": "Enter your PIN to read the balance of the account. ",
    "plain prose, no short word": "Returns the balance of the account at a block. ",
}
out = {}
for name, piece in unit.items():
    for size in (chars // 10, chars):
        text = (piece * (size // len(piece) + 1))[:size]
        secret_asked(text)
        best = min(timeit.repeat(lambda: secret_asked(text), number=1, repeat=rounds))
        out[f"{name} @{size}"] = best * 1000
print(json.dumps(out))
"""


def timed(core: Path, chars: int, rounds: int) -> dict:
    """Milliseconds per check, by case, with ``core`` first on the path."""
    env = dict(os.environ, PYTHONPATH=f"{core}{os.pathsep}{ROOT}")
    done = subprocess.run(  # nosec B603: this interpreter, fixed arguments
        [sys.executable, "-c", TIMER, str(chars), str(rounds)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout)


def main() -> None:
    """Time the working tree against ``--before`` and print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--chars", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--before", default="main")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(  # nosec B603 B607: git archive of a revision
            ["git", "archive", args.before, "libs/mech-catalogue-core"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(  # nosec B603 B607
            ["tar", "-x", "-C", tmp], input=archive, check=True
        )
        before = timed(Path(tmp) / "libs/mech-catalogue-core", args.chars, args.rounds)
    after = timed(ROOT / "libs/mech-catalogue-core", args.chars, args.rounds)
    print(f"{'case':44} {'before ms':>10} {'after ms':>10} {'ratio':>6}")
    for case, then in before.items():
        now = after[case]
        print(f"{case:44} {then:10.2f} {now:10.2f} {now / then:6.2f}")


if __name__ == "__main__":
    main()
