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

"""The ``mech-catalogue`` click group: each command lives in ``commands/<name>_cmd.py``, imported when used (see docs/cli.md)."""

import importlib
from typing import List, Optional

import click
from mech_catalogue_core.model.references import DOCS_URL, PROJECT_URL

from . import EXIT_INVALID
from .folders import DEFAULTS, samples_help
from .output import CliFailure


class _LazyGroup(click.Group):
    """A group whose commands are imported only when used.

    Each command lives in its own module, ``commands/<name>_cmd.py``; importing them all
    for every command was most of the CLI's start-up time (``mcp``, with the MCP SDK and
    uvicorn, alone 9 of 22 s at load 11). Their names are listed without importing them;
    ``--help`` of the group imports them for their short help.
    """

    lazy = {
        "cid": "mech_catalogue_cli.commands.cid_cmd:cid_command",
        "derive": "mech_catalogue_cli.commands.derive_cmd:derive",
        "export": "mech_catalogue_cli.commands.export_cmd:export",
        "generate": "mech_catalogue_cli.commands.generate_cmd:generate",
        "list": "mech_catalogue_cli.commands.list_cmd:list_mechs",
        "mcp": "mech_catalogue_cli.commands.mcp_cmd:mcp",
        "publish": "mech_catalogue_cli.commands.publish_cmd:publish",
        "search": "mech_catalogue_cli.commands.search_cmd:search",
        "serve": "mech_catalogue_cli.commands.serve_cmd:serve",
        "show": "mech_catalogue_cli.commands.show_cmd:show",
        "validate": "mech_catalogue_cli.commands.validate_cmd:validate",
    }

    def list_commands(self, ctx: click.Context) -> List[str]:
        """Return the eager and the lazy command names, sorted."""
        return sorted([*super().list_commands(ctx), *self.lazy])

    def get_command(self, ctx: click.Context, cmd_name: str) -> Optional[click.Command]:
        """Return a command, importing its module first when it is a lazy one."""
        if cmd_name not in self.lazy:
            return super().get_command(ctx, cmd_name)
        module, attribute = self.lazy[cmd_name].split(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        return command


@click.group(
    cls=_LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    help="Inspect, derive, generate and convert Olas mech tool manifests.\n\n"
    "Exit codes: 0 ok, 1 invalid input or manifest, 2 usage error.\n\n"
    f"\b\nNew here? Follow the tutorial:\n{DOCS_URL}/tutorial.md",
    epilog=samples_help(DEFAULTS, PROJECT_URL) + "\n\n\b\nExamples:\n"
    "  mech-catalogue derive examples/tools/token_oracle\n"
    "  mech-catalogue list --devnet\n"
    "  mech-catalogue publish --help",
)
@click.option("--json", "as_json", is_flag=True, help="JSON output for every command.")
@click.pass_context
def cli(ctx: click.Context, as_json: bool) -> None:
    """Store the group-wide ``--json`` flag in the context for every command."""
    ctx.ensure_object(dict)
    ctx.obj["json"] = as_json


def main() -> None:
    """Run the CLI (exit codes: 0 ok, 1 invalid input, 2 usage)."""
    cli(obj={}, prog_name="mech-catalogue")  # pylint: disable=no-value-for-parameter


assert EXIT_INVALID == CliFailure.exit_code
