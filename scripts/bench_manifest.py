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

"""Benchmark: ten-tool manifests parsed + validated + normalised per second, on one core.

Not a test (TEAM.md: performance only in benchmarks). Each manifest is distinct (tool
names, descriptions and argument identifiers vary) but reuses realistic schemas, as real
mechs do; embedded-schema checks are cached by canonical text, so the first pass over a
new schema costs more than the steady state measured here.

The figure is reported with a baseline measured in the same run: plain ``json.loads`` of
the same bytes; and so is the general path alone (``parsing.parse_manifest_general``,
without the typed fast path of ``typed_fast_path.typed_manifest``). Usage::

    python scripts/bench_manifest.py [--manifests 300] [--rounds 9]
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mech_catalogue_core.manifest.parsing import (  # noqa: E402 # pylint: disable=wrong-import-position
    parse_manifest,
    parse_manifest_general,
)
from mech_catalogue_core.manifest.typed_fast_path import (  # noqa: E402 # pylint: disable=wrong-import-position
    typed_manifest,
)
from mech_catalogue_core.model.catalogue import (  # noqa: E402 # pylint: disable=wrong-import-position
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.tool import (  # noqa: E402 # pylint: disable=wrong-import-position
    MechRef,
)

OUTPUT = {
    "type": "object",
    "description": "A JSON object containing the prediction and confidence",
    "schema": {
        "type": "object",
        "properties": {
            "requestId": {
                "type": "integer",
                "description": "Unique identifier for the request",
            },
            "result": {
                "type": "string",
                "description": "Result information in JSON format as a string",
            },
            "prompt": {
                "type": "string",
                "description": "The prompt used to make the prediction.",
            },
        },
        "required": ["requestId", "result", "prompt"],
    },
}
ARG_TYPES = ["hexAddress", "uint256", "int", "str", "list[bytes32]", "float", "bool"]


def ten_tool_manifest(index: int, typed: bool = True) -> bytes:
    """Return a ten-tool manifest, as published (indent 2).

    :param index: makes the manifest distinct.
    :param typed: v1 typed arguments (else today's shape: text input only).
    :return: a ten-tool manifest, as published (indent 2).
    """
    names = [f"tool-{index}-{t}" for t in range(10)]
    metadata: Dict[str, Dict[str, Any]] = {}
    for t, name in enumerate(names):
        arguments: List[Dict[str, Any]] = [
            {
                "identifier": f"arg_{index % 7}_{a}",
                "type": ARG_TYPES[(t + a) % len(ARG_TYPES)],
                "description": f"Argument {a} of {name}",
            }
            for a in range(3)
        ]
        arguments.append(
            {
                "identifier": "mode",
                "type": "enum",
                "enum": ["fast", "slow"],
                "default": "fast",
            }
        )
        metadata[name] = {
            "name": name,
            "description": f"Tool {t} of mech {index}: estimates the probability of an event.",
            "input": {
                "type": "text",
                "description": "The text to make a prediction on",
            },
            "output": OUTPUT,
        }
        if typed:
            metadata[name]["arguments"] = arguments
    document = {
        "specVersion": "1",
        "name": f"Bench Mech {index}",
        "description": "The mech executes AI tasks requested on-chain and delivers the results to the requester.",
        "inputFormat": "ipfs-v0.1",
        "outputFormat": "ipfs-v0.1",
        "image": "tbd",
        "tools": names,
        "toolMetadata": metadata,
    }
    return json.dumps(document, indent=2).encode()


def rates(
    works: List[Callable[[bytes], object]], corpus: List[bytes], rounds: int
) -> List[float]:
    """Measure several functions, interleaved round by round, keeping each one's best round.

    Time is this process's CPU time (``time.process_time``), i.e. manifests per CPU-second
    of one core, so waiting for a CPU on a busy shared machine does not count. Interleaving
    makes the ratios fair: a disturbed moment costs every function alike, and the best
    round is the one least disturbed.

    :param works: per-manifest functions.
    :param corpus: inputs.
    :param rounds: rounds per function.
    :return: manifests per second, per function.
    """
    best = [0.0] * len(works)
    for _ in range(rounds):
        for index, work in enumerate(works):
            start = time.process_time()
            for data in corpus:
                work(data)
            best[index] = max(best[index], len(corpus) / (time.process_time() - start))
    return best


def full_pipeline(data: bytes) -> Mech:
    """Parse + validate + normalise, then tie the manifest to a mech.

    :param data: manifest bytes.
    :return: the mech entry.
    """
    result = parse_manifest(data)
    assert result.manifest is not None and not result.errors, result.problems
    return Mech.from_manifest(
        MechRef(100, "complementary_service_metadata", "0x" + "00" * 20, 1),
        result.manifest,
        result.problems,
    )


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifests", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    for typed in (False, True):
        run(
            [ten_tool_manifest(i, typed) for i in range(args.manifests)],
            args.rounds,
            typed,
        )


def run(corpus: List[bytes], rounds: int, typed: bool) -> None:
    """Run.

    :param corpus: manifests.
    :param rounds: best of.
    :param typed: label only.
    """
    size = sum(len(d) for d in corpus) / len(corpus)
    parse_manifest(corpus[0])  # warm the schema cache once, as a running agent would be
    general, baseline, parsed, pipeline = rates(
        [parse_manifest_general, json.loads, parse_manifest, full_pipeline],
        corpus,
        rounds,
    )
    fast = sum(typed_manifest(d) is not None for d in corpus)
    mechs = [full_pipeline(d) for d in corpus[:200]]
    start = time.perf_counter()
    Catalogue.build(mechs).digest()
    digest_ms = (time.perf_counter() - start) * 1000
    shape = "v1 typed, 4 arguments a tool" if typed else "today's shape, text input"
    print(
        f"ten-tool manifests ({shape}), {size:.0f} bytes each, {len(corpus)} distinct, best of {rounds}, one core"
    )
    print(f"  baseline json.loads         : {baseline:8.0f} /s")
    print(
        f"  parse_manifest              : {parsed:8.0f} /s  = {parsed / baseline:.3f} x json.loads"
    )
    print(
        f"  parse + Mech.from_manifest  : {pipeline:8.0f} /s  = {pipeline / baseline:.3f} x json.loads"
    )
    print(
        f"  general path alone          : {general:8.0f} /s  = {general / baseline:.3f} x json.loads"
        f"  (parse_manifest = {parsed / general:.2f} x it; typed fast path took"
        f" {fast} of {len(corpus)})"
    )
    print(f"  catalogue digest, 200 mechs : {digest_ms:8.1f} ms")
    print(f"  goal >= 5000 /s: {'met' if parsed >= 5000 else 'NOT met'}")


if __name__ == "__main__":
    main()
