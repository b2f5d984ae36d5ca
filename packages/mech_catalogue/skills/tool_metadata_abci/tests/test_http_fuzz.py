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

"""Generated requests thrown at the pure routing layer: it never raises and always answers well.

The running-agent counterpart is ``tests/e2e/test_one_agent.py::test_http_api_survives_generated_requests``.
"""

import json
import re
from typing import Optional
from urllib.parse import quote

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from mech_catalogue_core.http_api.request import (
    ERROR_STATUS,
    HEALTHCHECK_PATH,
    NO_CATALOGUE,
    PAGE_PREFIX,
    TOOLS_PATH,
    Request,
    parse_request,
)
from mech_catalogue_core.http_api.routes import (
    CatalogueView,
    route,
)

from packages.mech_catalogue.skills.tool_metadata_abci.tests.http_requests import (
    GeneratedRequest,
    requests,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.test_handlers import (
    CATALOGUE,
    NOW,
    exposed,
    mech,
)

PAGE_SIZE = 2
#: the engine's cursor: the offset and 16 hex digits binding it to the query
SEARCH_CURSOR = re.compile(r"[0-9]{1,9}\.[0-9a-f]{16}")
#: includes names needing percent-encoding and a non-ASCII one
ODD = exposed(
    mech(1, "prediction-online", "a/b", "caf\u00e9", "x y"), mech(2, "a/b", "z")
)
VIEWS = (None, CatalogueView.build(CATALOGUE), CatalogueView.build(ODD))
#: 302 only sends a person's ``/`` or ``/catalogue`` to the page (``page_redirect``)
ANSWERED = {200, 302, 503} | set(ERROR_STATUS.values()) - {500}


def check(request: GeneratedRequest, view: Optional[CatalogueView]) -> None:
    """Route one request and check the answer's shape.

    :param request: the generated request.
    :param view: the served catalogue.
    """
    result = route(
        request.method, request.url, request.body, view, NOW, PAGE_SIZE, 3600.0
    )
    assert result.status_code in ANSWERED, (request, result)
    body = json.loads(result.body)
    parsed = parse_request(request.method, request.url, request.body)
    path = parsed.path if isinstance(parsed, Request) else None
    if result.status_code == 503 and "error" not in body:
        # the healthcheck's status document, not an error: balancers read the status
        assert path == HEALTHCHECK_PATH, (request, result)
        assert body["status"] in ("stale", NO_CATALOGUE), body
    elif result.status_code == 302:
        # the page's own prefix on this server, never another origin
        assert body == {"location": PAGE_PREFIX}, (request, result)
        assert f"\nLocation: {PAGE_PREFIX}\n" in f"\n{result.headers}", (
            request,
            result,
        )
    elif result.status_code in ERROR_STATUS.values():
        error = body["error"]
        assert ERROR_STATUS[error["code"]] == result.status_code
        assert isinstance(error["message"], str) and error["message"]
        assert len(error["message"]) < 600, "client text is quoted shortened"
    elif result.status_code == 200 and path == TOOLS_PATH:
        assert len(body["tools"]) <= PAGE_SIZE
        cursor = body.get("nextCursor")
        searched = isinstance(parsed, Request) and parsed.search is not None
        assert cursor is None or (
            SEARCH_CURSOR.fullmatch(cursor)
            if searched
            else (cursor.isascii() and cursor.isdigit())
        )


@settings(
    max_examples=1500,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(request=requests, view=st.sampled_from(VIEWS))
@example(GeneratedRequest("GET", "/healthcheck", (), b""), None)
@example(GeneratedRequest("GET", "/healthcheck", (), b""), VIEWS[1])
@example(GeneratedRequest("GET", "/", (), b""), None)
@example(GeneratedRequest("GET", "/catalogue", (), b""), VIEWS[1])
def test_generated_requests_get_an_answer(
    request: GeneratedRequest, view: Optional[CatalogueView]
) -> None:
    """Any method, URL, query and body: a 2xx/302/4xx/503 JSON answer, never an exception or a 500."""
    check(request, view)


@settings(max_examples=500, deadline=None, database=None)
@given(
    method=st.from_type(object),
    url=st.one_of(st.from_type(object), st.binary()),
    body=st.from_type(object),
)
def test_values_of_any_type_are_refused(
    method: object, url: object, body: object
) -> None:
    """Whatever the protocol hands over, the parser answers instead of raising."""
    parsed = parse_request(method, url, body)
    assert parsed is not None


@settings(max_examples=300, deadline=None, database=None)
@given(
    name=st.sampled_from(ODD.catalogue.tool_names()),
    safe=st.sampled_from(["", "/", "-"]),
)
def test_every_tool_name_is_reachable_percent_encoded(name: str, safe: str) -> None:
    """Encoding a served name (any safe set but '/') always reaches that tool."""
    encoded = quote(name, safe=safe.replace("/", ""))
    result = route("GET", f"/tools/{encoded}", b"", VIEWS[2], NOW, PAGE_SIZE, 1.0)
    assert result.status_code == 200 and json.loads(result.body)["name"] == name
