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


"""``mech-catalogue serve``: the catalogue web page and JSON API of a catalogue it reads.

The catalogue is read once at start, as ``list`` and ``search`` read it (the registries
and marketplace of ``--chain NAME``, ``--devnet`` or the source options), or from a file
of ``list --json`` (``--from``). It is then served exactly as the agent serves its agreed
catalogue: every request goes through the library's :func:`.routes.route` (the page at
``/catalogue/``, ``/tools``, ``/tools/<name>``, ``/offers``, ``/mechs``,
``/mechs/<key>``, ``/healthcheck``), so the page, its Content-Security-Policy and every
answer are the agent's. uvicorn speaks HTTP (bounded: request head, connections at once,
keep-alive); this module only hands it the route.

Why a command of its own rather than the MCP server's HTTP transport: the MCP server is
a paying client (a key, spending caps, a journal) whose HTTP port speaks MCP to a model;
browsing the catalogue needs none of that, and a page beside a paying endpoint would be
one more thing a browser on the same machine could reach. Exit 0 when stopped (Ctrl-C),
1 when the catalogue cannot be read, 2 on a bad command line.
"""

import time
from pathlib import Path
from typing import Any, Awaitable, Callable, List, MutableMapping, Optional, Tuple

import click
from mech_catalogue_core.catalogue.exposure import ExposedCatalogue
from mech_catalogue_core.chain.presets import ChainPreset
from mech_catalogue_core.http_api.request import BODY_TOO_LARGE, error_result
from mech_catalogue_core.http_api.routes import CatalogueView, HttpResult, route
from mech_catalogue_core.model.catalogue import Catalogue

from ..chain_options import PresetCommand, chain_options
from ..devnet_options import USES_CHAIN_READS, DevnetSettings, devnet_options
from ..output import Output
from .list_cmd import source_options
from .search_cmd import catalogue_to_search

#: where the server listens unless told (loopback: the page is for this machine)
DEFAULT_HOST = "127.0.0.1"
#: the port unless told (below the ephemeral range; the agent's API uses 8000)
DEFAULT_PORT = 8090
#: tools, offers or mechs per page of the JSON API unless told (the agent's default)
PAGE_SIZE = 50
#: request body bytes read at most (a GET carries none; the API answers 400 to any)
MAX_BODY_BYTES = 65536
#: request line and header fields at most, bytes (as the agent's HTTP server)
MAX_HEAD_BYTES = 16384
#: connections served at once; more are answered 503 by uvicorn
MAX_CONNECTIONS = 64

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


def exposed(catalogue: Catalogue, now: float) -> ExposedCatalogue:
    """Serve a catalogue read here as the agent serves an agreed one.

    :param catalogue: the catalogue.
    :param now: unix time of the read, seconds.
    :return: its exposure: its own digest, the newest block a manifest was read at (0
        when none), no snapshot digest (no registry snapshot was agreed), period 0.
    """
    blocks = [m.observed_block for m in catalogue.mechs if m.observed_block is not None]
    return ExposedCatalogue(
        catalogue=catalogue,
        catalogue_digest=catalogue.digest(),
        snapshot_digest="",
        block_number=max(blocks, default=0),
        agreed_at=now,
        period=0,
    )


def _header_pairs(result: HttpResult) -> List[Tuple[bytes, bytes]]:
    pairs = []
    for line in result.headers.splitlines():
        name, _, value = line.partition(":")
        if name.strip():
            pairs.append((name.strip().lower().encode(), value.strip().encode()))
    pairs.append((b"content-length", str(len(result.body)).encode()))
    return pairs


async def _body(receive: Receive) -> Optional[bytes]:
    """The request body, or None when it is over :data:`MAX_BODY_BYTES`."""
    body = b""
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return body
        body += message.get("body", b"")
        if len(body) > MAX_BODY_BYTES:
            return None
        if not message.get("more_body", False):
            return body


def catalogue_app(
    view: CatalogueView, max_age_seconds: float, page_size: int = PAGE_SIZE
) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
    """The ASGI application answering every request with :func:`.routes.route`.

    :param view: the served catalogue.
    :param max_age_seconds: the healthcheck's freshness limit.
    :param page_size: items per page of the JSON API.
    :return: the application (HTTP scopes; lifespan events are acknowledged).
    """

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                await send({"type": message["type"] + ".complete"})
                if message["type"] == "lifespan.shutdown":
                    return
        if scope["type"] != "http":
            return
        body = await _body(receive)
        if body is None:
            result = error_result(
                BODY_TOO_LARGE, f"a request body is at most {MAX_BODY_BYTES} bytes"
            )
        else:
            # the request target as sent: the path still percent-encoded, and the query
            target = scope.get("raw_path") or scope["path"].encode()
            query = scope.get("query_string", b"")
            if query:
                target += b"?" + query
            result = route(
                scope["method"],
                target.decode("latin-1"),
                body,
                view,
                time.time(),
                page_size,
                max_age_seconds,
            )
        await send(
            {
                "type": "http.response.start",
                "status": result.status_code,
                "headers": _header_pairs(result),
            }
        )
        await send({"type": "http.response.body", "body": result.body})

    return app


@click.command(
    name="serve",
    cls=PresetCommand,
    help="Serve a catalogue's web page and JSON API (the agent's routes): search with "
    "filters, tool pages with their arguments as a form, mech pages with problems. "
    "The catalogue is read once at start, as `list` reads it, or from a `list --json` "
    "file (--from); restart to read it again.\n\nExit codes: 0 stopped, 1 the "
    "catalogue could not be read, 2 usage error. The page is at "
    "http://127.0.0.1:8090/catalogue/ by default.",
    epilog="\b\nExamples:\n"
    "  mech-catalogue serve --devnet\n"
    "  mech-catalogue serve --from catalogue.json --port 8091",
)
@click.option(
    "--from",
    "from_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Serve this catalogue (`mech-catalogue list --json > FILE`) instead of "
    "reading the chain.",
)
@click.option(
    "--host",
    default=DEFAULT_HOST,
    show_default=True,
    help="Address to listen on (another than loopback shows the page to the network).",
    metavar="HOST",
)
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="TCP port to listen on.",
)
@click.option(
    "--page-size",
    type=click.IntRange(1, 200),
    default=PAGE_SIZE,
    show_default=True,
    help="Tools, offers or mechs per page of the JSON API (and of the page's search).",
)
@click.option(
    "--max-age",
    "max_age_seconds",
    type=click.FloatRange(min=1),
    default=3600.0,
    show_default=True,
    help="Seconds after the read when /healthcheck calls the catalogue stale.",
)
@source_options
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Say where it serves, and any failure, as JSON on stdout.",
)
@click.pass_context
@chain_options
@devnet_options(USES_CHAIN_READS)
def serve(  # pylint: disable=too-many-arguments
    ctx: click.Context,
    *,
    from_file: Optional[Path],
    host: str,
    port: int,
    page_size: int,
    max_age_seconds: float,
    devnet: Optional[DevnetSettings],
    preset: Optional[ChainPreset],
    as_json: bool,
    **source: Any,
) -> None:
    """Serve the catalogue page and API until stopped.

    :param ctx: the click context.
    :param from_file: ``--from``.
    :param host: ``--host``.
    :param port: ``--port``.
    :param page_size: ``--page-size``.
    :param max_age_seconds: ``--max-age``.
    :param devnet: the running devnet, or None.
    :param preset: the ``--chain`` preset, or None.
    :param as_json: ``--json``.
    :param source: :func:`.list_cmd.source_options`' values.
    """
    import uvicorn  # pylint: disable=import-outside-toplevel

    out = Output(as_json or bool((ctx.obj or {}).get("json")))
    catalogue = catalogue_to_search(ctx, out, from_file, source, devnet, preset)
    view = CatalogueView.build(exposed(catalogue, time.time()))
    view.search_index()  # built before the first request, not on the server's loop
    shown = f"[{host}]" if ":" in host else host
    page = f"http://{shown}:{port}/catalogue/"
    if out.as_json:
        out.emit({"page": page, **view.counts})
    else:
        click.echo(
            f"serving {view.counts['tools']} tools from {view.counts['mechs']} mechs: "
            f"{page} (Ctrl-C stops)",
            err=True,
        )
    config = uvicorn.Config(
        catalogue_app(view, max_age_seconds, page_size),
        host=host,
        port=port,
        log_level="warning",
        lifespan="on",
        limit_concurrency=MAX_CONNECTIONS,
        timeout_keep_alive=5,
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        server_header=False,
        proxy_headers=False,
    )
    try:
        uvicorn.Server(config).run()
    except KeyboardInterrupt:
        pass  # uvicorn shut down, then raised the signal again: Ctrl-C is a stop, exit 0
