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

"""Options and help text the commands share: ``--json``, the IPFS gateway, examples."""

import functools
import inspect
import re
from typing import Any, Callable, Optional

import click
from mech_catalogue_core.model.references import PROJECT_URL

from ..devnet_options import USES_GATEWAY, DevnetSettings, devnet_options, given
from ..folders import DEFAULTS, samples_help
from ..output import CliFailure, Output
from ..sources import DEFAULT_TIMEOUT, default_gateway

INVALID_MANIFEST = "invalid_manifest"
#: a manifest command was given a tool package (its folder or ``component.yaml``)
TOOL_PACKAGE_NOT_MANIFEST = "tool_package_not_manifest"
#: a manifest command was given a file that is not JSON at all (YAML, Markdown, empty)
NOT_A_MANIFEST = "not_a_manifest"
ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")
WARNINGS_AS_ERRORS = "warnings_as_errors"


#: bounds at least this large are written as a power of two in help and errors
_POWER_TEXT_FROM = 2**20


def _bound_text(bound: Any) -> str:
    magnitude = abs(int(bound))
    if magnitude >= _POWER_TEXT_FROM and magnitude & (magnitude - 1) == 0:
        return f"{'-' if bound < 0 else ''}2^{magnitude.bit_length() - 1}"
    return str(bound)


class WideIntRange(click.IntRange):
    """A closed ``click.IntRange`` whose power-of-two bounds read as ``2^62``.

    Click prints a range in the help and in its "not in the range" error as
    ``-4611686018427387904<=x<=4611686018427387904``, which a help column splits across
    lines; this says ``-2^62<=x<=2^62``.
    """

    def _describe_range(self) -> str:
        """Describe the range for the help and the range error.

        :return: e.g. ``-2^62<=x<=2^62``, ``0<=x<=2^62`` or ``x>=1``.
        """
        if self.min is None or self.max is None:
            return super()._describe_range()
        return f"{_bound_text(self.min)}<=x<={_bound_text(self.max)}"


def json_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--json`` and hand the command an :class:`Output` as ``out``."""

    @click.option(
        "--json", "as_json", is_flag=True, help="Print machine-readable JSON."
    )
    @click.pass_context
    @functools.wraps(command)
    def wrapper(ctx: click.Context, *args: Any, as_json: bool, **kwargs: Any) -> Any:
        out = Output(as_json or bool((ctx.obj or {}).get("json")))
        try:
            return command(*args, out=out, **kwargs)
        except CliFailure as failure:
            out.fail(failure)

    return wrapper


def examples(*lines: str) -> str:
    """Return a click epilog listing example command lines, kept unwrapped.

    :param lines: command lines, without the program name.
    :return: the epilog text; when a line uses the ``examples/`` sample folder, a
        sentence saying where it is (:func:`..folders.samples_help`).
    """
    text = "\b\nExamples:\n" + "\n".join(f"  mech-catalogue {line}" for line in lines)
    if any("examples/" in line for line in lines):
        return samples_help(DEFAULTS, PROJECT_URL) + "\n\n" + text
    return text


def gateway_options_for(
    uses: str,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Return :func:`gateway_options` for a command taking more from the devnet.

    :param uses: what it takes from the devnet (``--devnet``'s help).
    :return: the decorator.
    """
    return functools.partial(gateway_options, uses=uses)


def gateway_options(
    command: Callable[..., Any], uses: str = USES_GATEWAY
) -> Callable[..., Any]:
    """Add ``--ipfs-gateway``, ``--timeout`` and the devnet options (its gateway wins).

    :param command: the command function (given ``devnet`` too when it takes it).
    :param uses: what the command takes from the devnet (``--devnet``'s help).
    :return: the decorated command.
    """
    wants_devnet = "devnet" in inspect.signature(command).parameters

    @functools.wraps(command)
    def with_devnet(
        *args: Any, devnet: Optional[DevnetSettings], gateway: str, **kwargs: Any
    ) -> Any:
        if devnet is not None and not given("gateway"):
            gateway = devnet.info.ipfs_gateway_url
        if wants_devnet:
            kwargs["devnet"] = devnet
        return command(*args, gateway=gateway, **kwargs)

    decorated = devnet_options(uses)(with_devnet)
    decorated = click.option(
        "--timeout",
        type=click.FloatRange(min=0.1),
        default=DEFAULT_TIMEOUT,
        show_default=True,
        help="Seconds per IPFS request.",
    )(decorated)
    return click.option(
        "--ipfs-gateway",
        "gateway",
        metavar="URL",
        default=default_gateway,
        show_default="$MECH_CATALOGUE_IPFS_GATEWAY or http://127.0.0.1:8080",
        help="IPFS HTTP gateway used for CIDs and digests (--devnet: the devnet's).",
    )(decorated)
