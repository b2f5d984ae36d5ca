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


"""``mech-catalogue serve``: its ASGI application over the library's routes, and its failures.

The application is driven in-process by Starlette's test client (real HTTP semantics over
ASGI, no socket); the page in a browser over the real server is
``tests/test_catalogue_page_browser.py``.
"""

import json
import signal
import socket
import subprocess  # nosec B404: runs this repository's own CLI
import sys
import time
from pathlib import Path

from click.testing import CliRunner
from mech_catalogue_core.http_api.routes import CatalogueView
from mech_catalogue_core.tests.search.corpus import corpus
from starlette.testclient import TestClient

from mech_catalogue_cli import EXIT_INVALID
from mech_catalogue_cli.app import cli
from mech_catalogue_cli.commands.serve_cmd import MAX_BODY_BYTES, catalogue_app, exposed

CATALOGUE = corpus()


def client(page_size: int = 3) -> TestClient:
    """Return a client of the application over the search corpus.

    :param page_size: items per page.
    :return: the client.
    """
    view = CatalogueView.build(exposed(CATALOGUE, 0.0))
    return TestClient(catalogue_app(view, 10**12, page_size))


def test_the_page_and_the_api_are_the_agents_routes() -> None:
    """The page with its policy, /offers paged as asked, /healthcheck of the read catalogue."""
    with client() as http:
        page = http.get("/catalogue/")
        assert page.status_code == 200
        assert "script-src 'self'" in page.headers["content-security-policy"]
        assert page.headers["x-content-type-options"] == "nosniff"
        offers = http.get("/offers", params={"q": "prediction"}).json()
        assert len(offers["offers"]) == 3 and "nextCursor" in offers
        health = http.get("/healthcheck").json()
        assert health["status"] == "fresh"
        assert health["catalogue_digest"] == CATALOGUE.digest()
        assert health["mechs"] == len(CATALOGUE.mechs)


def test_the_root_and_the_page_without_its_slash_lead_to_the_page() -> None:
    """/ and /catalogue answer 302 to /catalogue/, which a client following it gets (issue 33)."""
    with client() as http:
        for path in ("/", "/catalogue"):
            moved = http.get(path, follow_redirects=False)
            assert moved.status_code == 302, path
            assert moved.headers["location"] == "/catalogue/"
            followed = http.get(path)
            assert followed.status_code == 200 and followed.url.path == "/catalogue/"
            assert "script-src 'self'" in followed.headers["content-security-policy"]


def test_the_request_target_reaches_the_route_as_sent() -> None:
    """A percent-encoded slash stays inside the tool name; a look-alike route is no route."""
    with client() as http:
        answer = http.get("/tools/prediction%2Fonline")
        assert answer.status_code == 404
        assert "'prediction/online'" in answer.json()["error"]["message"]
        assert http.get("/%74ools").json()["error"]["code"] == "unknown_path"
        assert http.get("/catalogue/%2e%2e/routes.py").status_code == 404


def test_a_body_over_the_cap_and_other_methods_are_refused() -> None:
    """A body over the cap is 413 before any route; a POST is the API's 405."""
    with client() as http:
        large = http.request("POST", "/tools", content=b"x" * (MAX_BODY_BYTES + 1))
        assert large.status_code == 413
        assert large.json()["error"]["code"] == "body_too_large"
        post = http.post("/tools", content=b"")
        assert post.status_code == 405 and post.headers["allow"] == "GET"


def test_a_missing_catalogue_file_exits_1_saying_how_to_write_one(
    tmp_path: Path,
) -> None:
    """``--from`` a file that does not exist: exit 1, the code and the command that writes one."""
    result = CliRunner().invoke(
        cli, ["serve", "--from", str(tmp_path / "none.json"), "--json"]
    )
    assert result.exit_code == EXIT_INVALID
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "catalogue_unreadable"
    assert "list --json" in error["message"]


def test_ctrl_c_stops_the_server_with_exit_0(tmp_path: Path) -> None:
    """SIGINT, as a terminal's Ctrl-C sends it: the server stops, exit 0, no "Aborted!"."""
    source = tmp_path / "catalogue.json"
    source.write_text(CATALOGUE.to_json(), encoding="utf-8")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "mech_catalogue_cli", "serve", "--from"]
    command += [str(source), "--port", str(port)]
    with subprocess.Popen(  # nosec B603: this repository's own CLI
        command, stderr=subprocess.PIPE, text=True
    ) as server:
        began = time.monotonic()
        while time.monotonic() - began < 60:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                assert server.poll() is None, server.stderr.read()  # type: ignore
                time.sleep(0.2)
        server.send_signal(signal.SIGINT)
        _, stderr = server.communicate(timeout=30)
    assert server.returncode == 0, stderr
    assert "Aborted" not in stderr
