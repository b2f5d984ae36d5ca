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

"""The one size-cap policy for every read of a manifest from IPFS: stop reading at the cap.

A manifest is at most ``cap`` bytes (the ``max_manifest_bytes`` parameter, default 1 MiB).
Every reader asks for, and keeps, at most ``cap + 1`` bytes: a body of exactly ``cap + 1``
bytes proves the file is over the cap (the fetcher then reports ``too_large``) without
the rest ever being transferred or held. Readers:

- an HTTP gateway (the skill through the ``mech_catalogue/capped_http_client``
  connection, the CLI, the sync driver): ``Range: bytes=0-<cap>`` (RFC 9110 s14.2; kubo's
  gateway answers 206 with at most ``cap + 1`` bytes); the reader stops at ``cap + 1``
  bytes even when the gateway ignores the Range (the connection and the streamed reads
  below), and :func:`gateway_body` keeps at most ``cap + 1`` bytes of what came back;
- a kubo RPC ``/api/v0/cat``: its ``length`` argument (:func:`cat_params`);
- a streamed response (``requests`` ``iter_content``): :func:`read_capped` stops pulling
  chunks once ``cap + 1`` bytes are in.

A truncated body never verifies: the verification re-hashes the bytes against the
on-chain digest (``cid.verify``), and a prefix of a file hashes to something else. So
truncation can only turn "too large" into "too large", never into a wrong manifest.
"""

import email
import re
from typing import Iterable, Optional, Tuple

# ASCII digits, at most 40 (a total far past any cap still reads, and is too large): ``\d``
# matched any Unicode digit, and int() of thousands of them raised ValueError out of the
# reply handler
_CONTENT_RANGE = re.compile(r"bytes\s+([0-9]{1,40})-([0-9]{1,40})/([0-9]{1,40}|\*)\s*$")

#: HTTP status of a ranged answer (RFC 9110 s15.3.7)
PARTIAL_CONTENT = 206


def read_limit(cap: int) -> int:
    """Return the most bytes any reader keeps for a manifest capped at ``cap``.

    :param cap: the manifest byte cap (>= 0).
    :return: ``cap + 1``: one byte past the cap proves the file is too large.
    """
    return cap + 1


def range_header(cap: int) -> str:
    """Return the ``Range`` header value asking a gateway for :func:`read_limit` bytes.

    :param cap: the manifest byte cap.
    :return: e.g. ``bytes=0-1048576`` for a 1 MiB cap (ranges are inclusive).
    """
    return f"bytes=0-{cap}"


def cat_params(cid: str, cap: int) -> dict:
    """Return the query of a kubo RPC ``/api/v0/cat`` that reads at most :func:`read_limit` bytes.

    :param cid: the CID.
    :param cap: the manifest byte cap.
    :return: ``{"arg": cid, "length": cap + 1}``.
    """
    return {"arg": cid, "length": str(read_limit(cap))}


def read_capped(chunks: Iterable[bytes], cap: int) -> bytes:
    """Join streamed chunks, pulling none after :func:`read_limit` bytes are in.

    :param chunks: the body, chunk by chunk (pulled lazily).
    :param cap: the manifest byte cap.
    :return: at most ``cap + 1`` bytes; ``cap + 1`` means the body was over the cap.
    """
    limit = read_limit(cap)
    out = bytearray()
    for chunk in chunks:
        out += chunk[: limit - len(out)]
        if len(out) >= limit:
            break
    return bytes(out)


def content_range_total(value: Optional[str]) -> Optional[int]:
    """Read the complete length from a ``Content-Range`` value.

    :param value: e.g. ``bytes 0-1048576/419430400``, or None.
    :return: the complete length (419430400), None when absent, unknown (``*``) or malformed.
    """
    match = _CONTENT_RANGE.match((value or "").strip())
    if match is None or match.group(3) == "*":
        return None
    return int(match.group(3))


def header(headers: str, name: str) -> Optional[str]:
    """Look a header up in the ``valory/http`` protocol's header text.

    :param headers: ``Name: value`` lines, as the http_client connection writes them.
    :param name: the header name (any case).
    :return: its value, None when absent.
    """
    return email.message_from_string(headers or "").get(name)


def gateway_body(
    status: int, headers: str, body: bytes, cap: int
) -> Tuple[Optional[bytes], str]:
    """Turn a gateway's answer to a ranged GET into ``(bytes or None, failure text)``.

    - 200 (Range ignored) or 206 from offset 0: the first ``cap + 1`` bytes at most;
      when a 206's ``Content-Range`` says the file is larger than the cap, ``cap + 1``
      bytes are what a too-large file gives, so a body that stops short of that (a
      gateway that sent less than asked) is a failure, not a manifest;
    - anything else: a failure naming the status.

    :param status: the HTTP status.
    :param headers: the response headers as ``Name: value`` lines.
    :param body: the response body as received.
    :param cap: the manifest byte cap.
    :return: ``(at most cap + 1 bytes, "")`` or ``(None, why)``.
    """
    if status not in (200, PARTIAL_CONTENT):
        return None, f"gateway answered HTTP {status}"
    kept = body[: read_limit(cap)]
    if status == PARTIAL_CONTENT:
        total = content_range_total(header(headers, "Content-Range"))
        if total is not None and len(kept) < min(total, read_limit(cap)):
            return (
                None,
                f"gateway sent {len(kept)} of the {min(total, read_limit(cap))} bytes asked for",
            )
    return bytes(kept), ""
