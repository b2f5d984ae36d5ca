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

"""Benchmark: the text checks reading every string as written and as rendered (adv29o).

Not a test (performance is measured here, never asserted). Since adv29o the word checks
read each text twice when it holds markup, a reference or a non-ASCII character
(``rendered_text.plain_text``), and the walk reads every string and key of a tool. They
run on every listing (``tools/list`` composes ``to_mcp_tool``, whose warnings are
``tool_text_problems``, and refuses by ``secret_arguments`` on the served schema), on
every catalogue the agents build, and on every paid answer (``answer_instructions``).

Compares the checks of ``--before`` (a git revision, loaded from ``git show``) with the
working tree's, in the same run, on ``--tools`` tools of three catalogues: plain ASCII
prose, prose with Markdown, HTML, references and accents, and 10,000-character
descriptions with markup; then a 64 KiB paid answer; then the readings (as written,
rendered and read through, adv29s) and the instruction check on hostile shapes at two
sizes (growth 10 when linear). ``--before`` loads that revision's ``untrusted_text``
over its own ``rendered_text``. Prints best-of-``--rounds`` times and
ratios after / before. Usage::

    python scripts/bench_text_checks.py [--tools 2000] [--rounds 3] [--before main]
"""

import argparse
import importlib.util
import json
import subprocess  # nosec B404: git show of a revision, for the comparison only
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Dict, List, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "libs" / "mech-catalogue-core")]

# pylint: disable=wrong-import-position
from mech_catalogue_core.exporters import mcp_tool  # noqa: E402
from mech_catalogue_core.manifest.parsing import parse_manifest  # noqa: E402
from mech_catalogue_core.model import secret_requests, untrusted_text  # noqa: E402
from mech_catalogue_core.model.problems import Problem  # noqa: E402
from mech_catalogue_core.model.tool import Tool  # noqa: E402

from mech_catalogue_cli.mcp_server import answers  # noqa: E402

MODULE = "libs/mech-catalogue-core/mech_catalogue_core/model/untrusted_text.py"
RENDERED_MODULE = "libs/mech-catalogue-core/mech_catalogue_core/model/rendered_text.py"
RENDERED_TEXT = "mech_catalogue_core.model.rendered_text"

#: catalogue name -> a tool description of that kind
DESCRIPTIONS: Dict[str, Callable[[int], str]] = {
    "plain prose": lambda i: f"Tide tables for port {i}, in metres, from the almanac.",
    "markup, references, accents": lambda i: (
        f"**Tide** tables for <b>port {i}</b> &amp; currents; see "
        "[the almanac](https://e.org/a 'Almanac'). Café, naïve, ｆｕｌｌ."
    ),
    "10,000-character markup": lambda i: (
        f"<p>Port {i}</p> **bold** &#105;tems [a](b) snake_case ü " * 160
    )[:10_000],
}
#: hostile shape -> a text of at least ``n`` characters (cut to ``n``)
SHAPES: Dict[str, Callable[[int], str]] = {
    "prose with markup (baseline)": lambda n: (
        "The <b>tool</b> returns a *forecast* &amp; [docs](https://e.org). "
    )
    * (n // 60 + 1),
    "unclosed tags with quotes": lambda n: '<a b="' * (n // 6 + 1),
    "tag attributes, no end": lambda n: "<a" + " b=c" * (n // 4 + 1),
    "unclosed comments": lambda n: "<!--" * (n // 4 + 1),
    "comment openers, one end": lambda n: "<!-- x " * (n // 7 + 1) + "-->",
    "unclosed link targets": lambda n: "](" * (n // 2 + 1),
    "nested references": lambda n: "&amp;" * (n // 5) + "#105;",
    "references": lambda n: "&#105;&nbsp;&#x67;" * (n // 18 + 1),
    "emphasis and escapes": lambda n: "*_\\*`~" * (n // 6 + 1),
    "full-width and math letters": lambda n: "ｆｕｌｌ𝐦𝐚𝐭𝐡 ï" * (n // 11 + 1),
    "unclosed openers of each kind": lambda n: "<?a <!--b <![CDATA[c <!Xd "
    * (n // 26 + 1),
    "openers, one end of each": lambda n: "<?<!--<![CDATA[<!X" * (n // 18 + 1)
    + "?>-->]]>>",
    "empty comments": lambda n: "<!--><!--->" * (n // 11 + 1),
    "undefined labels": lambda n: "[a][b c]" * (n // 8 + 1),
    "label definitions and labels": lambda n: "[a][b]\n[b]: /u\n" * (n // 14 + 1),
    "combining marks of every block": lambda n: "i\u1ab0g\u1dc4n\u20d7o\ufe20"
    * (n // 8 + 1),
    "small capitals and modifiers": lambda n: "ᴘʀɪᴠᴀᴛᴇ ᵖʳᶦᵛ ꮲꭱꭵ " * (n // 17 + 1),
    # the shapes CommonMark's parser works hardest on (adv29u: the rendered reading is
    # markdown-it-py's): brackets nested and unclosed, image openers, link openers,
    # code span openers, entity runs, containers
    "nested brackets": lambda n: "[a" * (n // 2 + 1),
    "open brackets": lambda n: "[" * n,
    "image openers": lambda n: "![" * (n // 2 + 1),
    "unclosed links with targets": lambda n: "[x](" * (n // 4 + 1),
    "less-than signs": lambda n: "<" * n,
    "asterisks": lambda n: "*" * n,
    "emphasis runs between letters": lambda n: "*a_" * (n // 3 + 1),
    "open parentheses after a link": lambda n: "[a](" + "(" * n,
    "backtick runs of growing length": lambda n: "".join(
        "`" * k + "x" for k in range(1, 450)
    )
    * (n // 100_000 + 1),
    "entity runs": lambda n: "&amp;&#105;&lt;" * (n // 15 + 1),
    "nested quotes and lists": lambda n: "> - " * (n // 4 + 1),
    "definitions in quotes": lambda n: "> [a]: /u 't'\n" * (n // 14 + 1),
}


def _module_at(revision: str, path: str, name: str) -> ModuleType:
    """A module's source at a git revision, loaded under another name.

    :param revision: a git revision of this repository.
    :param path: the module's file in the repository.
    :param name: the name it is loaded under.
    :return: the module.
    """
    source = subprocess.run(  # nosec B603 B607: fixed git arguments
        ["git", "show", f"{revision}:{path}"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as file:
        file.write(source)
    spec = importlib.util.spec_from_file_location(name, file.name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def before_module(revision: str) -> ModuleType:
    """The ``untrusted_text`` module of a git revision, over its ``rendered_text``.

    Both are loaded under other names; the working tree's modules are kept.

    :param revision: a git revision of this repository.
    :return: the module.
    """
    current = sys.modules[RENDERED_TEXT]
    sys.modules[RENDERED_TEXT] = _module_at(
        revision, RENDERED_MODULE, "rendered_text_before"
    )
    try:
        return _module_at(revision, MODULE, "untrusted_text_before")
    finally:
        sys.modules[RENDERED_TEXT] = current


def best_ms(rounds: int, work: Callable[[], Any]) -> float:
    """Best wall time of ``work()`` over ``rounds`` runs, in milliseconds.

    :param rounds: how many runs.
    :param work: what is timed.
    :return: milliseconds.
    """
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def paired_ms(
    rounds: int, before: Callable[[], Any], after: Callable[[], Any]
) -> Tuple[float, float]:
    """Best times of two works run in turns, so a load on the machine hits both alike.

    :param rounds: runs of each.
    :param before: the old code's work.
    :param after: the new code's work.
    :return: (best ms of ``before``, best ms of ``after``).
    """
    times = [(best_ms(1, before), best_ms(1, after)) for _ in range(rounds)]
    return min(t[0] for t in times), min(t[1] for t in times)


def catalogue(describe: Callable[[int], str], count: int) -> List[Tool]:
    """``count`` tools parsed from manifests of 10 tools, each with a typed schema.

    :param describe: a tool's description by its index.
    :param count: tools.
    :return: the parsed tools.
    """
    tools: List[Tool] = []
    for start in range(0, count, 10):
        names = [f"tide-{start + i}" for i in range(10)]
        schema = {
            "type": "object",
            "properties": {
                "port": {
                    "type": "string",
                    "description": describe(start),
                    "pattern": "^[a-z]+$",
                    "enum": ["brest", {"name": "brest"}],
                },
                "days": {"type": "integer", "default": 1, "title": "Days"},
            },
            "required": ["port"],
        }
        metadata = {
            n: {
                "name": n,
                "description": describe(start + i),
                "input": {"type": "text", "description": "a port", "schema": schema},
                "output": {"type": "object", "description": "the tides"},
            }
            for i, n in enumerate(names)
        }
        manifest = {"name": "Tides", "tools": names, "toolMetadata": metadata}
        parsed = parse_manifest(json.dumps(manifest).encode())
        assert parsed.manifest is not None, parsed.problems
        tools.extend(parsed.manifest.tools)
    return tools


def _row(label: str, before: float, after: float) -> None:
    print(f"{label:44} {before:10.1f} ms {after:10.1f} ms {after / before:7.2f}")


def compare_catalogue(
    name: str, tools: List[Tool], old: ModuleType, rounds: int
) -> None:
    """Print the listing's checks before and after on one catalogue.

    :param name: the catalogue's name.
    :param tools: its tools.
    :param old: the ``untrusted_text`` of ``--before``.
    :param rounds: runs per figure.
    """
    new_problems = mcp_tool.tool_text_problems
    served = [mcp_tool.to_mcp_tool(t)["inputSchema"] for t in tools]

    def listing(problems: Callable[[Tool], Tuple[Problem, ...]]) -> None:
        setattr(mcp_tool, "tool_text_problems", problems)
        try:
            for tool in tools:
                mcp_tool.to_mcp_tool(tool)
        finally:
            setattr(mcp_tool, "tool_text_problems", new_problems)

    _row(
        f"{name}: tool_text_problems",
        *paired_ms(
            rounds,
            lambda: [old.tool_text_problems(t) for t in tools],
            lambda: [untrusted_text.tool_text_problems(t) for t in tools],
        ),
    )
    _row(
        f"{name}: secret arguments (served schema)",
        *paired_ms(
            rounds,
            lambda: [old.secret_arguments(s) for s in served],
            lambda: [secret_requests.every_secret_argument(s) for s in served],
        ),
    )
    _row(
        f"{name}: to_mcp_tool (tools/list)",
        *paired_ms(
            rounds,
            lambda: listing(old.tool_text_problems),
            lambda: listing(new_problems),
        ),
    )


def compare_answer(old: ModuleType, rounds: int) -> None:
    """Print ``answer_instructions`` before and after on a 64 KiB JSON answer.

    :param old: the ``untrusted_text`` of ``--before``.
    :param rounds: runs per figure.
    """
    value = {
        f"k{i}": f"The <b>tide</b> is *high* at 12:00 &amp; low at {i}, café."
        for i in range(1100)
    }
    text = json.dumps(value)[: answers.MAX_ANSWER_BYTES]
    new_phrases = answers.flagged_phrases  # instructions and secret requests (adv29yt)

    def checked(phrases: Callable[[str], Tuple[str, ...]]) -> None:
        setattr(answers, "flagged_phrases", phrases)
        try:
            answers.answer_instructions(text, {"result": text})
        finally:
            setattr(answers, "flagged_phrases", new_phrases)

    _row(
        f"answer_instructions, {len(text):,} characters",
        *paired_ms(
            rounds,
            lambda: checked(old.instruction_phrases),
            lambda: checked(new_phrases),
        ),
    )


def readings_growth(
    name: str, text: Callable[[int], str], size: int, rounds: int
) -> None:
    """Print the readings and the instruction check of one shape at two sizes.

    ``readings`` (as written, rendered and read through) and ``instruction_phrases``
    (every reading folded, then matched), at a tenth of ``size`` and at ``size``.

    :param name: the shape's name.
    :param text: a text of the shape, at least ``n`` characters long, by ``n``.
    :param size: characters of the large size.
    :param rounds: runs per figure.
    """
    small, large = text(size // 10)[: size // 10], text(size)[:size]
    # the functions themselves: instruction_phrases is memoised, and its memo would
    # answer every round but the first
    checks: Dict[str, Callable[..., Any]] = {
        "readings": untrusted_text.readings,
        "instruction_phrases": untrusted_text.instruction_phrases.__wrapped__,
    }
    for check_name, check in checks.items():
        at_small = best_ms(rounds, lambda: check(small))  # pylint: disable=W0640
        at_large = best_ms(rounds, lambda: check(large))  # pylint: disable=W0640
        label = f"{name}: {check_name}"
        print(
            f"{label:60} {at_small:10.1f} ms {at_large:10.1f} ms "
            f"{at_large / at_small:6.1f}"
        )


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--tools", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--size", type=int, default=1_000_000, help="characters")
    parser.add_argument("--before", default="main", help="git revision compared with")
    args = parser.parse_args()
    old = before_module(args.before)
    print(
        f"{'catalogue, ' + str(args.tools) + ' tools':44} {'before':>13} {'after':>13} ratio"
    )
    for name, describe in DESCRIPTIONS.items():
        compare_catalogue(name, catalogue(describe, args.tools), old, args.rounds)
    compare_answer(old, args.rounds)
    print(f"{'shape: check':60} {args.size // 10:>10,} ch {args.size:>10,} ch growth")
    for name, make in SHAPES.items():
        readings_growth(name, make, args.size, args.rounds)


if __name__ == "__main__":
    main()
