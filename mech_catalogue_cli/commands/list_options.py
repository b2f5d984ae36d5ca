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

"""``list``'s own option values: ``--registry KIND:ADDRESS[:IDS]`` and ``--fallback-gateway``.

Click callbacks turning option text into the skill parameters' shapes (``registries``
entries, gateway URLs); ``mcp`` parses ``--registry`` with the same one. Bad text is a
``click.BadParameter`` (exit 2) naming the option.
"""

from typing import Any, Dict, List, Sequence, Tuple
from urllib.parse import urlsplit

import click
from mech_catalogue_core.model.tool import (
    REGISTRY_KINDS,
)


def _ids(text: str) -> Any:
    """Turn ``all``, ``1,2,5`` or ``1-20`` into the ``ids`` value of the skill parameter.

    :param text: the IDS part of ``--registry``.
    :return: ``"all"``, a list of ints or ``{"from": a, "to": b}`` (``int()``'s
        ``ValueError`` when it is none of these).
    """
    if text == "all":
        return "all"
    if "-" in text:
        start, end = text.split("-", 1)
        return {"from": int(start), "to": int(end)}
    return [int(part) for part in text.split(",")]


def parse_registry_option(
    ctx: click.Context, param: click.Parameter, values: Sequence[str]
) -> List[Dict[str, Any]]:
    """Parse each ``--registry KIND:ADDRESS[:IDS]`` into a skill ``registries`` entry.

    :param ctx: the click context.
    :param param: the ``--registry`` parameter.
    :param values: the raw option values.
    :return: ``[{"kind", "address", "ids"}, ...]``; the address is checked later by
        ``parse_registry_sources``, which names the entry.
    :raises BadParameter: (exit 2) on a malformed value, naming the option.
    """
    entries = []
    for value in values:
        parts = value.split(":")
        if len(parts) not in (2, 3) or not parts[1]:
            raise click.BadParameter(
                f"{value!r} is not KIND:ADDRESS[:IDS] "
                f"(e.g. olas_agent_registry:0xAbC...:1-20).",
                ctx,
                param,
            )
        if parts[0] not in REGISTRY_KINDS:
            raise click.BadParameter(
                f"{value!r}: registry kind {parts[0]!r} is not one of "
                f"{', '.join(REGISTRY_KINDS)}.",
                ctx,
                param,
            )
        try:
            ids = _ids(parts[2] if len(parts) == 3 else "all")
        except ValueError as exc:
            raise click.BadParameter(
                f"{value!r}: IDS must be 'all', a list like 1,2,5 or a range like 1-20.",
                ctx,
                param,
            ) from exc
        entries.append({"kind": parts[0], "address": parts[1], "ids": ids})
    return entries


def parse_gateway_option(
    _ctx: click.Context, _param: click.Parameter, values: Tuple[str, ...]
) -> Tuple[str, ...]:
    """Check ``--fallback-gateway`` URLs: http(s) with a host; trailing ``/`` dropped.

    :param _ctx: the click context.
    :param _param: the option.
    :param values: the URLs as given.
    :return: the URLs, in order, duplicates dropped.
    :raises BadParameter: (exit 2) naming the URL that is not one.
    """
    urls: List[str] = []
    for value in values:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise click.BadParameter(
                f"{value!r} is not an http(s) gateway URL such as https://ipfs.io",
                param_hint="'--fallback-gateway'",
            )
        url = value.rstrip("/")
        if url not in urls:
            urls.append(url)
    return tuple(urls)
