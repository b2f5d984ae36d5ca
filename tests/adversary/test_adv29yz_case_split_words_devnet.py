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
"""A tool asking for a ``PassWord`` is listed by the MCP server (adv29z K1, devnet).

Severity: HIGH (the shape of ``test_adv29yz_case_split_words.py`` through the MCP
SDK's client over stdio: the server offers a tool whose argument asks for the user's
password or seed phrase).

Observed on main: the market mech's owner moves its manifest to one whose ``signer``
argument says ``Paste your PassWord`` (or ``Enter your seed pHrase``); ``tools/list``
lists the tool, with no ``secret_argument`` refusal, while ``Paste your password`` is
not listed.

Expected: neither is listed.
"""

from pathlib import Path

import pytest

from scripts.devnet import Devnet
from tests.adversary.test_adv29s_instruction_unclosed_markup import listed_for


@pytest.mark.parametrize("asking", ["Paste your PassWord", "Enter your seed pHrase"])
def test_a_tool_asking_for_a_password_with_a_capital_inside_is_not_listed(
    chain_snapshot: Devnet, tmp_path: Path, asking: str
) -> None:
    """The word a person reads is "password": the server must refuse the tool."""
    served = listed_for(chain_snapshot, tmp_path, asking)
    asked = "" if served is None else served.input_schema["properties"]["signer"]
    # observed on main: listed
    assert served is None, asked


def test_the_same_request_in_one_case_is_not_listed(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """The control: ``Paste your password`` is refused on main."""
    assert listed_for(chain_snapshot, tmp_path, "Paste your password") is None
