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

"""A port left in TIME-WAIT by a server stopped a moment ago is free; a listened one is not.

Issue #34 item 12: the free-port check bound without ``SO_REUSEADDR``, so restarting
``make run`` within a minute found port 8000 "taken" by the stopped agent's TIME-WAIT
connections and moved the catalogue API to another port (the tutorial's
``curl :8000/tools`` failed). Real sockets on loopback: the server closes first, which
leaves its side of the connection in TIME-WAIT.
"""

import socket

from scripts.devnet.processes import can_listen, listen_port
from scripts.run_local.runner import busy_http_ports, choose_http_port


def _port_in_time_wait() -> int:
    """Listen, accept one connection, close the server side first, stop listening.

    :return: the port, now holding only a TIME-WAIT connection.
    """
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", listen_port()))
    server.listen(1)
    port = int(server.getsockname()[1])
    client = socket.create_connection(("127.0.0.1", port))
    accepted, _ = server.accept()
    accepted.close()  # the active close: the server's side enters TIME-WAIT
    client.recv(1)  # the client sees the end and closes its side
    client.close()
    server.close()
    return port


def test_a_port_in_time_wait_is_free_for_a_new_server() -> None:
    """The stopped server's port is offered again, as its own restart could bind it."""
    port = _port_in_time_wait()
    plain = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:  # the situation is real: a probe without SO_REUSEADDR is refused
        refused = False
        try:
            plain.bind(("127.0.0.1", port))
        except OSError:
            refused = True
        assert refused, "no TIME-WAIT connection was left on the port"
    finally:
        plain.close()
    assert can_listen("127.0.0.1", port)
    assert busy_http_ports(port, 1) == []
    assert choose_http_port(port, 1, explicit=True) == (port, "")


def test_a_port_some_process_listens_on_is_still_taken() -> None:
    """SO_REUSEADDR does not let the probe share a port with a live listener."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", listen_port()))
    listener.listen(1)
    port = int(listener.getsockname()[1])
    try:
        assert not can_listen("127.0.0.1", port)
        assert busy_http_ports(port, 1) == [port]
        chosen, note = choose_http_port(port, 1, explicit=False)
        assert chosen != port and str(port) in note
    finally:
        listener.close()
