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

"""``mech-catalogue validate``: is a manifest readable and valid (docs/cli.md)."""

import click
from mech_catalogue_core.model.references import (
    MANIFEST_SPEC_URL,
)
from mech_catalogue_core.model.vocabulary import (
    DocumentKind,
)
from rich.console import Console
from rich.markup import escape

from ..output import CliFailure, Output, print_problem
from .manifest_input import load_source, parse_with_kind
from .options import (
    INVALID_MANIFEST,
    WARNINGS_AS_ERRORS,
    examples,
    gateway_options,
    json_option,
)

#: what ``validate`` says after the source for a document that is not a v1 manifest
_KIND_NOTES = {
    DocumentKind.NFT_METADATA: " (registry NFT metadata)",
    DocumentKind.DESCRIBED_TOOLS: " (tools as JSON in its description)",
    DocumentKind.SINGLE_TOOL: " (a single tool object, read as a one-tool manifest)",
}


@click.command(
    epilog=examples(
        "validate my-mech/manifest.json",
        "validate --strict my-mech/manifest.json",
        "validate --devnet bafybei...",
    )
)
@click.argument("source")
@click.option(
    "--strict", is_flag=True, help="Fail on warnings too (e.g. untyped tools)."
)
@gateway_options
@json_option
def validate(
    source: str, strict: bool, gateway: str, timeout: float, out: Output
) -> None:
    """Check a manifest FILE, CID or 0x digest: strict JSON, the v1 schema, every tool; whatever `show` and `export` read (NFT metadata, tools in the description, one tool object) is checked as what it is."""
    loaded = load_source(source, gateway, timeout)
    manifest, problems, kind = parse_with_kind(loaded)
    what = _KIND_NOTES.get(kind, "")
    errors = [p for p in problems if p.is_error]
    ok = manifest is not None and not errors and not (strict and problems)
    result = {
        "ok": ok,
        "document": kind,
        "source": loaded.origin,
        "cid": loaded.cid,
        "tools": [] if manifest is None else list(manifest.tool_names),
        "problems": [p.to_dict() for p in problems],
    }
    if not ok:
        code = INVALID_MANIFEST if (manifest is None or errors) else WARNINGS_AS_ERRORS
        summary = f"{loaded.origin}{what}: {len(errors)} error(s), {len(problems) - len(errors)} warning(s)."
        if kind == DocumentKind.NFT_METADATA and manifest is None:
            summary += (
                " Its description holds no tool metadata JSON; for a component, derive "
                "the arguments from its code_uri with `mech-catalogue derive ipfs://<CID>`."
            )
        raise CliFailure(
            code,
            summary
            + (" --strict fails on warnings." if code == WARNINGS_AS_ERRORS else ""),
            problems,
        )

    def render(console: Console) -> None:
        tools = len(manifest.tools) if manifest is not None else 0
        console.print(
            f"[green]valid[/] {escape(loaded.origin)}{what}: {tools} tool(s), "
            f"{len(problems)} warning(s)",
            markup=True,
        )
        if kind == DocumentKind.NFT_METADATA:
            console.print(
                "  checked its fields and the tool metadata JSON in its description "
                f"({MANIFEST_SPEC_URL} section 3)"
            )
        for problem in problems:
            print_problem(console, problem)

    out.emit(result, render)
