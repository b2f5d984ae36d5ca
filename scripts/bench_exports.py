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

"""Benchmark: the cost of self-contained, checked exports, per tool, on one core.

Not a test (performance only in benchmarks). Builds ``--tools`` tools from ``input.schema``
manifests with ``$defs`` references (one recursive), then times: parsing (with reference
resolution), each exporter (MCP Tool with its conformance check, OpenAI with the strict
rewrite and check, Anthropic with key renaming) and one ``GET /tools`` page. Usage::

    python scripts/bench_exports.py [--tools 500] [--page 50]
"""

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# pylint: disable=wrong-import-position
from mech_catalogue_core import (  # noqa: E402
    exporters,
)
from mech_catalogue_core.model.catalogue import (  # noqa: E402
    Catalogue,
    Mech,
)

from scripts.bench_catalogue import (  # noqa: E402
    agreed,
    get,
    parsed_mechs,
    served_view,
)

SCHEMA: Dict[str, Any] = {
    "type": "object",
    "$defs": {
        "Token": {"type": "string", "pattern": "^0x[0-9a-fA-F]{40}$"},
        "Leg": {
            "type": "object",
            "properties": {
                "token": {"$ref": "#/$defs/Token"},
                "amount": {"type": "string"},
            },
            "required": ["token"],
        },
        "Node": {
            "type": "object",
            "properties": {
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
            },
        },
    },
    "properties": {
        "sell": {"$ref": "#/$defs/Token"},
        "legs": {"type": "array", "items": {"$ref": "#/$defs/Leg"}},
        "tree": {"$ref": "#/$defs/Node"},
        "mode": {"oneOf": [{"const": "fast"}, {"const": "safe"}]},
        "ids": {"type": "array"},
        "limit": {"type": "integer", "default": 10},
    },
    "required": ["sell"],
}


def _manifest(index: int, tools: int) -> bytes:
    names = [f"tool-{index}-{i}" for i in range(tools)]
    metadata = {
        n: {
            "name": n,
            "description": f"Tool {n}",
            "input": {"type": "text", "description": "q", "schema": SCHEMA},
            "output": {"type": "object", "description": "r"},
        }
        for n in names
    }
    return json.dumps({"name": "m", "tools": names, "toolMetadata": metadata}).encode()


def _time(label: str, count: int, work: Callable[[], Any]) -> None:
    start = time.perf_counter()
    work()
    elapsed = time.perf_counter() - start
    print(
        f"{label:<44} {elapsed * 1000:9.1f} ms total {elapsed / count * 1e6:9.0f} us each"
    )


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", type=int, default=500)
    parser.add_argument("--page", type=int, default=50)
    args = parser.parse_args()
    per_manifest = 10
    manifests = [_manifest(i, per_manifest) for i in range(args.tools // per_manifest)]
    mechs: List[Mech] = []

    def parse() -> None:
        mechs.extend(parsed_mechs(manifests, "complementary_service_metadata"))
        assert all(mech.tools for mech in mechs)

    count = len(manifests) * per_manifest
    _time("parse (refs resolved per argument)", count, parse)
    tools = [t for m in mechs for t in m.tools]
    _time(
        "MCP Tool + conformance check",
        count,
        lambda: [exporters.to_mcp_tool(t) for t in tools],
    )
    _time(
        "OpenAI tool (strict rewrite + check)",
        count,
        lambda: [exporters.to_openai_tool(t) for t in tools],
    )
    _time(
        "Anthropic tool (key renaming)",
        count,
        lambda: [exporters.to_anthropic_tool(t) for t in tools],
    )
    view = served_view(agreed(Catalogue.build(mechs)))
    _time(
        f"GET /tools first page of {args.page}",
        args.page,
        lambda: get(view, "/tools", args.page),
    )


if __name__ == "__main__":
    main()
