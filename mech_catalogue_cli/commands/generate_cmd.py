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

"""``mech-catalogue generate``: a v1 manifest from tool packages and overrides (docs/cli.md)."""

import sys
from pathlib import Path
from typing import Optional, Tuple

import click
from mech_catalogue_core.derive.generate import (
    GenerateError,
    generate_manifest,
)
from mech_catalogue_core.model.canonical import (
    canonical_bytes,
)
from rich.console import Console

from ..output import CliFailure, Output, console_on, print_problem
from ..overrides import failure_code, generate_failure, read_overrides
from .derive_cmd import derive_tool_package
from .options import (
    examples,
    json_option,
)
from .output_file import write_output


@click.command(
    help="Generate a manifest (spec v1) from tool packages, validated before it is "
    "written.\n\nThe output holds the manifest's canonical bytes (RFC 8785: no spaces, "
    "sorted keys), the bytes `publish` uploads: `cid FILE`, `ipfs add FILE` and "
    "`publish` give one digest.",
    epilog=examples(
        "generate examples/tools/token_oracle -o my-mech/manifest.json",
        "generate examples/tools/* --overrides examples/token_oracle.overrides.yaml -o my-mech/manifest.json",
    ),
)
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option(
    "--overrides", "overrides_path", type=click.Path(), help="YAML/JSON overrides file."
)
@click.option(
    "--output",
    "-o",
    "output_path",
    type=click.Path(dir_okay=False),
    help="Write the manifest here (missing folders are created).",
)
@json_option
def generate(
    paths: Tuple[str, ...],
    overrides_path: Optional[str],
    output_path: Optional[str],
    out: Output,
) -> None:
    """Generate a manifest (spec v1) from tool packages, validated before it is written."""
    packages = [derive_tool_package(p) for p in paths]
    try:
        document, warnings = generate_manifest(packages, read_overrides(overrides_path))
    except GenerateError as exc:
        raise CliFailure(
            failure_code(exc, overrides_path),
            generate_failure(exc, overrides_path, "nothing was written"),
            exc.problems,
        ) from exc
    data = canonical_bytes(document)  # the bytes `publish` uploads and hashes
    if output_path:
        write_output(Path(output_path), data)
    result = {
        "ok": True,
        "output": output_path,
        "manifest": document,
        "warnings": [w.to_dict() for w in warnings],
    }

    def render(console: Console) -> None:
        if output_path:
            console.print(
                f"[green]wrote[/] {output_path}: {len(document['tools'])} tool(s)",
                markup=True,
            )
        else:
            click.echo(data, nl=False)
        errors = console_on(sys.stderr)
        for warning in warnings:
            print_problem(errors, warning)

    out.emit(result, render)
