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

"""Benchmark: the cost of cleaning the text exporters compose (adv29r), per export.

Not a test (performance is measured, not asserted). Builds ``--tools`` tools (default
500), each with ``--properties`` typed string arguments (default 20) whose schemas carry
a 300-character description, a ``default``, a ``format`` outside OpenAI's strict set,
an ``enum`` and a ``not``, so the strict rewrite writes notes into every description;
every tenth tool's values hold an HTML comment.
Timed in turn, best of ``--rounds``, for the OpenAI, Anthropic, LangChain and A2A exports:

- ``now``: the exporters as they are (:mod:`mech_catalogue_core.exporters.composed_text`
  cleaning each output's composed text last);
- ``before``: the same exporters with that step replaced by the identity (what they did
  before adv29r), in the same run.

Usage::

    python scripts/bench_composed_text.py [--tools 500] [--properties 20] [--rounds 3]
"""

import argparse
import json
import sys
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# pylint: disable=wrong-import-position
from mech_catalogue_core import exporters  # noqa: E402
from mech_catalogue_core.exporters import (  # noqa: E402
    a2a_card,
    anthropic_tool,
    langchain_tool,
    openai_tool,
)
from mech_catalogue_core.manifest.parsing import parse_manifest  # noqa: E402
from mech_catalogue_core.model.catalogue import Mech  # noqa: E402

#: the exporter modules and the names of the cleaning step each calls
CLEANING_STEPS = {
    openai_tool: ("composed_for_model", "schema_prose_for_model"),
    anthropic_tool: ("composed_for_model", "schema_prose_for_model"),
    langchain_tool: ("composed_for_model", "schema_prose_for_model"),
    a2a_card: ("composed_for_model",),
}
#: tools parsed in one manifest (each manifest within the 1 MiB cap)
PER_MANIFEST = 50


def _tool(index: int, properties: int) -> Dict[str, Any]:
    value = f"value {index}" + ("<!-- hidden -->" if index % 10 == 0 else "")
    schema = {
        "type": "object",
        "properties": {
            f"arg{p}": {
                "type": "string",
                "description": ("a port of call, written as its harbour name " * 7),
                "default": value,
                "format": f"harbour-{p}",
                "enum": [value, "plain", "other"],
                "not": {"const": value},
            }
            for p in range(properties)
        },
        "required": ["arg0"],
    }
    return {
        "name": f"tool-{index}",
        "description": "High and low tides for a port.",
        "examples": [value, {value: value}],
        "input": {"type": "text", "description": "a port", "schema": schema},
        "output": {"type": "object", "description": "the tides"},
    }


def build(tools: int, properties: int) -> Mech:
    """One mech of ``tools`` tools, parsed by the real parser.

    Parsed :data:`PER_MANIFEST` tools at a time (a manifest is capped at 1 MiB).

    :param tools: how many tools.
    :param properties: arguments per tool.
    :return: the mech, as ``export`` builds it, holding every tool.
    """
    parsed_tools: List[Any] = []
    for first in range(0, tools, PER_MANIFEST):
        metadata = {
            f"tool-{i}": _tool(i, properties)
            for i in range(first, min(first + PER_MANIFEST, tools))
        }
        manifest = {
            "name": "Tides",
            "description": "Tide tables.",
            "tools": list(metadata),
            "toolMetadata": metadata,
        }
        parsed = parse_manifest(json.dumps(manifest))
        assert parsed.manifest is not None, parsed.problems
        parsed_tools.extend(parsed.manifest.tools)
        mech = Mech.from_manifest(exporters.UNKNOWN_REF, parsed.manifest)
    return replace(mech, tools=tuple(parsed_tools))


@contextmanager
def cleaning_skipped() -> Iterator[None]:
    """The exporters without their last cleaning step (the baseline), restored after.

    :yield: nothing.
    """
    saved = {
        (module, name): getattr(module, name)
        for module, names in CLEANING_STEPS.items()
        for name in names
    }
    try:
        for module, name in saved:
            setattr(module, name, lambda value: value)
        yield
    finally:
        for (module, name), step in saved.items():
            setattr(module, name, step)


def now_and_before(run: Callable[[], Any], rounds: int) -> Tuple[float, float]:
    """Best wall times of ``run`` with and without the cleaning step, milliseconds.

    The two are timed in turn, round by round, so a change of the machine's load
    touches both alike.

    :param run: the export.
    :param rounds: how many times each.
    :return: (now, before) in milliseconds.
    """
    now, before = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        now.append(time.perf_counter() - start)
        with cleaning_skipped():
            start = time.perf_counter()
            run()
            before.append(time.perf_counter() - start)
    return min(now) * 1000, min(before) * 1000


def main(argv: List[str]) -> None:
    """Print milliseconds now and before, and their ratio, per export.

    :param argv: command-line arguments.
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tools", type=int, default=500)
    parser.add_argument("--properties", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    mech = build(args.tools, args.properties)
    runs: Dict[str, Callable[[], Any]] = {
        "openai": lambda: exporters.to_openai_tools(mech.tools),
        "anthropic": lambda: exporters.to_anthropic_tools(mech.tools),
        "langchain": lambda: exporters.to_langchain_tools(mech.tools),
        "a2a": lambda: exporters.to_agent_card(mech, "https://a.example/a2a"),
    }
    print(f"{args.tools} tools x {args.properties} arguments, best of {args.rounds}")
    print("| export | now ms | before ms | now / before |")
    print("|---|---:|---:|---:|")
    for name, run in runs.items():
        now, before = now_and_before(run, args.rounds)
        print(f"| {name} | {now:,.1f} | {before:,.1f} | {now / before:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
