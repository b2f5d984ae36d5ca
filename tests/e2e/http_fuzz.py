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

"""Send generated requests to a running agent as raw bytes, and read the status it answers.

Raw sockets rather than an HTTP client: clients refuse the malformed request lines,
control characters and non-UTF-8 targets an attacker can send.
"""

import socket
from dataclasses import dataclass
from typing import Optional
from urllib.parse import urlsplit

from packages.mech_catalogue.skills.tool_metadata_abci.tests.http_requests import (
    GeneratedRequest,
)

MAX_RESPONSE_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class RawAnswer:
    """What came back.

    :param status: the status code of the response line (None when nothing parseable came).
    :param json_error: whether the body is the API's ``{"error": ...}`` shape.
    """

    status: Optional[int]
    json_error: bool


def encode_request(request: GeneratedRequest, host: str) -> bytes:
    """Write the request as HTTP/1.1 bytes, exactly as generated.

    :param request: the generated request.
    :param host: the ``Host`` header's value.
    :return: the bytes to send.
    """
    lines = [
        request.method.encode("utf-8", "surrogatepass")
        + b" "
        + request.url.encode("utf-8", "surrogatepass")
        + b" HTTP/1.1",
        b"Host: " + host.encode(),
        b"Connection: close",
    ]
    lines += [f"{name}: {value}".encode() for name, value in request.headers]
    if request.body:
        lines.append(b"Content-Length: %d" % len(request.body))
    return b"\r\n".join(lines) + b"\r\n\r\n" + request.body


def send_raw(
    base_url: str, request: GeneratedRequest, timeout: float = 20.0
) -> RawAnswer:
    """Send one request on its own connection and read the whole answer.

    :param base_url: the agent's ``http://host:port``.
    :param request: the generated request.
    :param timeout: seconds for connecting and for each read.
    :return: the answer's status and shape.
    """
    parts = urlsplit(base_url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    received = b""
    with socket.create_connection((host, port), timeout=timeout) as connection:
        connection.sendall(encode_request(request, f"{host}:{port}"))
        while len(received) < MAX_RESPONSE_BYTES:
            try:
                chunk = connection.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    fields = head.split(b"\r\n", 1)[0].split(b" ", 2)
    status = int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else None
    return RawAnswer(status, body.startswith(b'{"error":{'))
