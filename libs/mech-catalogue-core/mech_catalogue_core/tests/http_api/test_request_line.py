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

"""Which request targets go on to the skill (issue #34 item 8): the pure decision.

The connection that applies it is tested on a real socket in
``packages/mech_catalogue/connections/http_server/tests``.
"""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mech_catalogue_core.http_api.request import ERROR_STATUS, HttpResult
from mech_catalogue_core.http_api.request_line import authority_of, target_refusal

SERVED = {authority_of("127.0.0.1", 8000)}


def _code(result: HttpResult) -> str:
    return str(json.loads(result.body)["error"]["code"])


@pytest.mark.parametrize(
    "target",
    [
        "/tools",
        "/tools/x%2Fy?cursor=3",
        "http://127.0.0.1:8000/tools",
        "HTTP://127.0.0.1:8000/mechs",
        "http://127.0.0.1:8000",
    ],
)
def test_paths_and_this_server_s_urls_go_on(target: str) -> None:
    """Origin-form, and absolute-form naming the address connected to, pass unchanged."""
    assert target_refusal("GET", target, SERVED) is None


@pytest.mark.parametrize(
    "method,target,code",
    [
        ("GET", "ftp://127.0.0.1:8000/tools", "invalid_url"),
        ("GET", "https://127.0.0.1:8000/tools", "invalid_url"),
        ("GET", "javascript://x/tools", "invalid_url"),
        ("GET", "http://mechs.example/tools", "misdirected_request"),
        ("GET", "http://127.0.0.1/tools", "misdirected_request"),  # port 80
        ("GET", "http://127.0.0.1:8001/tools", "misdirected_request"),
        ("GET", "http://a@127.0.0.1:8000/tools", "invalid_url"),
        ("GET", "http:///tools", "misdirected_request"),  # no host at all
        ("CONNECT", "127.0.0.1:8000", "method_not_allowed"),
        ("OPTIONS", "*", "invalid_url"),
        ("GET", "tools", "invalid_url"),
        ("GET", "127.0.0.1:8000", "invalid_url"),
    ],
)
def test_other_targets_are_refused_with_the_api_s_codes(
    method: str, target: str, code: str
) -> None:
    """Foreign schemes, other servers, userinfo, tunnels, '*': refused, status per code."""
    result = target_refusal(method, target, SERVED)
    assert result is not None and _code(result) == code
    assert result.status_code == ERROR_STATUS[code]


def test_ipv6_and_port_80_authorities() -> None:
    """An IPv6 address is bracketed; a URL without a port names port 80."""
    served = {authority_of("::1", 8000), authority_of("10.0.0.2", 80)}
    assert served == {"[::1]:8000", "10.0.0.2:80"}
    assert target_refusal("GET", "http://[::1]:8000/tools", served) is None
    assert target_refusal("GET", "http://10.0.0.2/tools", served) is None


@given(st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=60))
def test_any_printable_target_gets_a_decision(target: str) -> None:
    """Total: any target is passed on only when origin-form or naming this server."""
    result = target_refusal("GET", target, SERVED)
    if result is None:
        assert target.startswith("/") or target.lower().startswith(
            "http://127.0.0.1:8000"
        )
    else:
        assert result.status_code in (400, 405, 421)
