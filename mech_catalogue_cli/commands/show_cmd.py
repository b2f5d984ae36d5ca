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

"""``mech-catalogue show``: a manifest's tools and problems (docs/cli.md)."""

import click
from mech_catalogue_core.model.untrusted_text import (
    label_for_model,
    prose_for_model,
    tool_for_model,
)
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..output import CliFailure, Output, print_problem, print_wrapped, untrusted
from .manifest_input import load_manifest
from .options import (
    INVALID_MANIFEST,
    examples,
    gateway_options,
    json_option,
)


@click.command(
    epilog=examples(
        "show my-mech/manifest.json",
        "show --devnet 0x0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
    )
)
@click.argument("source")
@gateway_options
@json_option
def show(source: str, gateway: str, timeout: float, out: Output) -> None:
    """List a manifest's tools and arguments; errors with no usable tool exit 1."""
    loaded, manifest, problems = load_manifest(source, gateway, timeout)
    errors = [p for p in problems if p.is_error]
    if errors and not manifest.tools:
        raise CliFailure(
            INVALID_MANIFEST,
            f"{loaded.origin} has {len(errors)} error(s) and no usable tool; "
            "fix the errors below (`validate` explains each).",
            problems,
        )
    result = {
        "source": loaded.origin,
        "cid": loaded.cid,
        "name": label_for_model(manifest.name),
        "description": prose_for_model(manifest.description),
        "tools": [tool_for_model(t).to_dict() for t in manifest.tools],
        "problems": [p.to_dict() for p in problems],
    }

    def render(console: Console) -> None:
        name = untrusted(manifest.name, label=True) or Text("(unnamed mech)")
        name.stylize("bold")
        print_wrapped(console, name.append(" "), untrusted(manifest.description))
        table = Table("tool", "arguments", "description", show_lines=False)
        for tool in manifest.tools:
            arguments = (
                ", ".join(
                    f"{a.identifier}{'' if a.required else '?'}: {a.type}"
                    for a in tool.arguments
                )
                or f"prompt: str (free {tool.input_type or 'text'})"
            )
            table.add_row(
                untrusted(tool.name, label=True),
                untrusted(arguments),
                untrusted(tool.description),
            )
        console.print(table)
        for problem in problems:
            print_problem(console, problem)

    out.emit(result, render)
