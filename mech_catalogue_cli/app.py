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

import gc
import importlib
import os
from typing import List, Optional

import click
from mech_catalogue_core.model.references import DOCS_URL, PROJECT_URL

from . import EXIT_INVALID
from .folders import DEFAULTS, samples_help
from .output import CliFailure

#: the distribution's name (pyproject.toml), whose installed version ``--version`` prints
DISTRIBUTION = "mech-catalogue"


class _LazyGroup(click.Group):
    """A group whose commands are imported only when used.

    Each command lives in its own module, ``commands/<name>_cmd.py``; importing them all
    for every command was most of the CLI's start-up time (``mcp``, with the MCP SDK and
    uvicorn, alone 9 of 22 s at load 11). Their names are listed without importing them,
    and so is the group's ``--help``: each command's summary is :attr:`summaries` (the
    start of its own help, ``tests/test_cli_startup.py`` checks it), so ``mech-catalogue
    --help`` imports no command module (it took 4-5 s of a loaded 2-CPU machine).
    """

    #: command -> the start of its help, as the group's ``--help`` lists it
    summaries = {
        "cid": "Convert a bytes32 digest <-> CID, or compute a FILE's CIDs",
        "derive": "Derive typed arguments from tool package folders, IPFS directories",
        "export": "Convert a manifest FILE, CID or digest to an agent format",
        "generate": "Generate a manifest (spec v1) from tool packages",
        "list": "List mechs and their tools from registries on a chain",
        "mcp": "Serve the catalogue as an MCP server",
        "prepay": "Show this account's prepaid balances per balance tracker",
        "publish": "Publish a manifest",
        "search": "Find tools by words and filters, ranked by relevance",
        "serve": "Serve a catalogue's web page and JSON API",
        "show": "List a manifest's tools and arguments",
        "validate": "Check a manifest FILE, CID or 0x digest",
    }

    lazy = {
        "cid": "mech_catalogue_cli.commands.cid_cmd:cid_command",
        "derive": "mech_catalogue_cli.commands.derive_cmd:derive",
        "export": "mech_catalogue_cli.commands.export_cmd:export",
        "generate": "mech_catalogue_cli.commands.generate_cmd:generate",
        "list": "mech_catalogue_cli.commands.list_cmd:list_mechs",
        "mcp": "mech_catalogue_cli.commands.mcp_cmd:mcp",
        "prepay": "mech_catalogue_cli.commands.prepay_cmd:prepay",
        "publish": "mech_catalogue_cli.commands.publish_cmd:publish",
        "search": "mech_catalogue_cli.commands.search_cmd:search",
        "serve": "mech_catalogue_cli.commands.serve_cmd:serve",
        "show": "mech_catalogue_cli.commands.show_cmd:show",
        "validate": "mech_catalogue_cli.commands.validate_cmd:validate",
    }

    def list_commands(self, ctx: click.Context) -> List[str]:
        """Return the eager and the lazy command names, sorted."""
        return sorted([*super().list_commands(ctx), *self.lazy])

    def format_commands(
        self, ctx: click.Context, formatter: click.HelpFormatter
    ) -> None:
        """List the commands with their summaries, importing none of them.

        :param ctx: the group's context.
        :param formatter: click's help formatter.
        """
        rows = [(name, self.summaries[name]) for name in sorted(self.lazy)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def parse_args(self, ctx: click.Context, args: List[str]) -> List[str]:
        """Before any command runs, keep the secrets of its URLs out of every output.

        Each URL on the command line or in a ``MECH_CATALOGUE_*`` variable is registered
        (``redaction.register_command_line``) and the log is filtered, for every command
        (``list``, ``search``, ``show``, ``publish``, ``export``, ``derive``, ``cid``,
        ``mcp``...); the consoles commands print through redact too
        (``output.console_on``).

        :param ctx: the group's context.
        :param args: the command line after the program name.
        :return: what click's parsing returns.
        """
        # pylint: disable-next=import-outside-toplevel
        from .redaction import install_log_redaction, register_command_line

        register_command_line(args, os.environ)
        install_log_redaction()
        return super().parse_args(ctx, args)

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
    "Exit codes: 0 ok, 1 invalid input or manifest, unreachable chain or IPFS, 2 usage error.\n\n"
    f"\b\nNew here? Follow the tutorial:\n{DOCS_URL}/tutorial.md",
    epilog=samples_help(DEFAULTS, PROJECT_URL) + "\n\n\b\nExamples:\n"
    "  mech-catalogue derive examples/tools/token_oracle\n"
    "  mech-catalogue list --devnet\n"
    "  mech-catalogue publish --help",
)
@click.option("--json", "as_json", is_flag=True, help="JSON output for every command.")
@click.version_option(
    None,
    "--version",
    package_name=DISTRIBUTION,
    prog_name=DISTRIBUTION,
    message="%(prog)s %(version)s",
)
@click.pass_context
def cli(ctx: click.Context, as_json: bool) -> None:
    """Store the group-wide ``--json`` flag in the context for every command."""
    ctx.ensure_object(dict)
    ctx.obj["json"] = as_json


def main() -> None:
    """Run the CLI (exit codes: 0 ok, 1 invalid input, 2 usage)."""
    try:
        # pylint: disable-next=no-value-for-parameter
        cli(obj={}, prog_name="mech-catalogue")
    finally:
        # The interpreter's shutdown otherwise spends about a second collecting the
        # objects of the modules the command imported (web3, the MCP SDK, pydantic):
        # frozen, they are left to the process's end. Files and journals are closed by
        # their own ``with`` blocks and logging by its atexit handler, both still run.
        gc.freeze()


assert EXIT_INVALID == CliFailure.exit_code
