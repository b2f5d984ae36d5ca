"""The skill's read-only HTTP API, as pure functions from the published catalogue to responses.

Routes (all GET, JSON bodies):

``/tools[?cursor=<c>]``
    MCP ``tools/list`` result shape (modelcontextprotocol.io, specification 2026-07-28,
    "Tools"; ``exporters.mcp_tool.tools_list_result``): ``{"tools": [Tool], "resultType",
    "ttlMs", "cacheScope", "nextCursor"?: str}``, one entry per distinct tool name,
    sorted by name, ``page_size`` per page; the cursor is opaque (base64url of the next
    offset). Each Tool is ``exporters.mcp_tool.offered_tool``: the checked MCP Tool of the
    first offering mech (ref order), with ``_meta["io.olas/mech-tool"]`` extended by
    ``mechs`` (keys of every offering mech) and ``collision``.
``/tools/<name>``
    ``{"name", "collision", "offers": [{"mech": MechRef, "tool": Tool.to_dict()}]}``; 404
    when no mech offers it.
``/mechs``
    ``{"mechs": [{"ref", "key", "status", "digest", "cid", "observed_block", "stale",
    "tools", "problems"}]}``.
``/healthcheck``
    freshness: ``{"status": "fresh"|"stale"|"no_catalogue", ...}``; 200 when fresh, else 503.

Errors are ``{"error": {"code": <machine code>, "message": <sentence>}}`` with 400/404/405.
"""

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import parse_qs, unquote, urlparse

from packages.mech_catalogue.skills.tool_metadata_abci.domain.exporters.mcp_tool import (
    offered_tool,
    tools_list_result,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.exporters.names import (
    MCP_RULE,
    export_names,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.model import (
    Catalogue,
    Tool,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.published import (
    PublishedCatalogue,
)


@dataclass(frozen=True)
class HttpResult:
    """An HTTP response to send.

    :param status_code: HTTP status.
    :param body: the JSON value of the body.
    """

    status_code: int
    body: Any

    @property
    def status_text(self) -> str:
        """Get the HTTP reason phrase.

        :return: the reason phrase.
        """
        return {
            200: "OK",
            400: "Bad Request",
            404: "Not Found",
            405: "Method Not Allowed",
            503: "Service Unavailable",
        }.get(self.status_code, "")

    def body_bytes(self) -> bytes:
        """Serialise the body.

        :return: the body as compact UTF-8 JSON.
        """
        return json.dumps(self.body, separators=(",", ":"), sort_keys=True).encode(
            "utf-8"
        )


def _error(status: int, code: str, message: str) -> HttpResult:
    return HttpResult(status, {"error": {"code": code, "message": message}})


def encode_cursor(offset: int) -> str:
    """Encode a page cursor.

    :param offset: index of the next tool.
    :return: the opaque cursor.
    """
    return base64.urlsafe_b64encode(f"offset:{offset}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> Optional[int]:
    """Decode a page cursor.

    :param cursor: from :func:`encode_cursor`.
    :return: the offset, None when the cursor is not ours.
    """
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    if not text.startswith("offset:") or not text[7:].isdigit():
        return None
    return int(text[7:])


def mcp_tool(tools: Tuple[Tool, ...], exported: Optional[str] = None) -> Dict[str, Any]:
    """One MCP ``Tool`` for a tool name (``exporters.mcp_tool.to_mcp_tool`` of the first offer).

    :param tools: every mech's tool of one name, ref order (non-empty).
    :param exported: the MCP-safe unique name (default: sanitised ``name``).
    :return: the MCP Tool, its ``_meta[META_KEY]`` extended with ``mechs`` (every offering
        mech's key) and ``collision`` (True when more than one mech offers the name).
    """
    return offered_tool(tools, exported)


def _grouped(catalogue: Catalogue) -> List[Tuple[str, Tuple[Tool, ...]]]:
    return [(name, catalogue.tools_named(name)) for name in catalogue.tool_names()]


def list_tools(
    published: Optional[PublishedCatalogue], cursor: Optional[str], page_size: int
) -> HttpResult:
    """Answer ``GET /tools``.

    :param published: the catalogue (None before the first agreement).
    :param cursor: from a previous page.
    :param page_size: tools per page.
    :return: the MCP ``tools/list`` result page.
    """
    offset = 0
    if cursor is not None:
        decoded = decode_cursor(cursor)
        if decoded is None:
            return _error(
                400,
                "invalid_cursor",
                f"cursor {cursor!r} was not issued by this API; omit it to start over",
            )
        offset = decoded
    if published is None:
        return HttpResult(200, tools_list_result([]))
    groups = _grouped(published.catalogue)
    names = export_names([name for name, _ in groups], MCP_RULE)
    page = groups[offset : offset + page_size]
    more = offset + page_size < len(groups)
    return HttpResult(
        200,
        tools_list_result(
            [mcp_tool(tools, names[name]) for name, tools in page],
            encode_cursor(offset + page_size) if more else None,
        ),
    )


def show_tool(published: Optional[PublishedCatalogue], name: str) -> HttpResult:
    """Answer ``GET /tools/<name>``.

    :param published: the catalogue.
    :param name: the tool name.
    :return: every mech's offer of it.
    """
    tools = published.catalogue.tools_named(name) if published is not None else ()
    if not tools:
        return _error(
            404,
            "unknown_tool",
            f"no mech in the catalogue offers a tool named {name!r}; see GET /tools",
        )
    return HttpResult(
        200,
        {
            "name": name,
            "collision": len(tools) > 1,
            "mcp": mcp_tool(tools),
            "offers": [
                {
                    "mech": t.provenance.mech.to_dict() if t.provenance.mech else None,
                    "tool": t.to_dict(),
                }
                for t in tools
            ],
        },
    )


def list_mechs(published: Optional[PublishedCatalogue]) -> HttpResult:
    """Answer ``GET /mechs``.

    :param published: the catalogue.
    :return: every mech with status, provenance and problems.
    """
    if published is None:
        return HttpResult(200, {"mechs": []})
    block = published.block_number
    return HttpResult(
        200,
        {
            "mechs": [
                {
                    "ref": m.ref.to_dict(),
                    "key": m.ref.key,
                    "status": m.status,
                    "digest": m.digest,
                    "cid": m.cid,
                    "observed_block": m.observed_block,
                    "stale": m.observed_block is None or m.observed_block < block,
                    "tools": [t.name for t in m.tools],
                    "problems": [p.to_dict() for p in m.problems],
                }
                for m in published.catalogue.mechs
            ]
        },
    )


def healthcheck(
    published: Optional[PublishedCatalogue], now: float, max_age_seconds: float
) -> HttpResult:
    """Answer ``GET /healthcheck``.

    :param published: the catalogue.
    :param now: unix time.
    :param max_age_seconds: freshness limit.
    :return: 200 with status fresh, or 503 with status stale / no_catalogue.
    """
    if published is None:
        return HttpResult(
            503, {"status": "no_catalogue", "max_age_seconds": max_age_seconds}
        )
    age = published.age_seconds(now)
    catalogue = published.catalogue
    body = {
        "status": "fresh" if age <= max_age_seconds else "stale",
        "age_seconds": age,
        "max_age_seconds": max_age_seconds,
        "catalogue_digest": published.catalogue_digest,
        "snapshot_digest": published.snapshot_digest,
        "block_number": published.block_number,
        "period": published.period,
        "mechs": len(catalogue.mechs),
        "tools": len(catalogue.tool_names()),
        "stale_mechs": len(catalogue.stale(published.block_number)),
        "errors": len(catalogue.errors()),
        "collisions": len(catalogue.collisions()),
    }
    return HttpResult(200 if body["status"] == "fresh" else 503, body)


def route(
    method: str,
    url: str,
    published: Optional[PublishedCatalogue],
    now: float,
    page_size: int,
    max_age_seconds: float,
) -> Optional[HttpResult]:
    """Answer one request.

    :param method: the HTTP method.
    :param url: the full URL or path, with query.
    :param published: the catalogue (None before the first agreement).
    :param now: unix time, seconds.
    :param page_size: tools per ``/tools`` page.
    :param max_age_seconds: the healthcheck's freshness limit.
    :return: the response, or None when the path is not this API's (another skill may serve it).
    """
    parsed = urlparse(url)
    path = parsed.path.rstrip("/") or "/"
    ours = path in ("/tools", "/mechs", "/healthcheck") or path.startswith("/tools/")
    if not ours:
        return None
    if method.upper() != "GET":
        return _error(405, "method_not_allowed", f"{path} only answers GET")
    if path == "/tools":
        cursor = parse_qs(parsed.query).get("cursor", [None])[0]
        return list_tools(published, cursor, page_size)
    if path.startswith("/tools/"):
        return show_tool(published, unquote(path[len("/tools/") :]))
    if path == "/mechs":
        return list_mechs(published)
    return healthcheck(published, now, max_age_seconds)
