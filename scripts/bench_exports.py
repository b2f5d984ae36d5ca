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
from packages.mech_catalogue.skills.tool_metadata_abci.domain import (  # noqa: E402
    exporters,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.catalogue.exposure import (  # noqa: E402
    ExposedCatalogue,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.http_api.routes import (  # noqa: E402
    CatalogueView,
    route,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.manifest.parsing import (  # noqa: E402
    parse_manifest,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.model.catalogue import (  # noqa: E402
    Catalogue,
    Mech,
    MechRef,
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
        for index, data in enumerate(manifests):
            parsed = parse_manifest(data)
            assert parsed.manifest is not None
            ref = MechRef(
                100, "complementary_service_metadata", "0x" + "ab" * 20, index
            )
            mechs.append(Mech.from_manifest(ref, parsed.manifest))

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
    exposed = ExposedCatalogue(
        Catalogue.build(mechs), "0x" + "00" * 32, "0x" + "00" * 32, 1, 0.0, 0
    )
    view = CatalogueView.build(exposed)
    _time(
        f"GET /tools first page of {args.page}",
        args.page,
        lambda: route("GET", "/tools", b"", view, 0.0, args.page, 60.0),
    )


if __name__ == "__main__":
    main()
