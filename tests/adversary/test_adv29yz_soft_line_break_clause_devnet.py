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
r"""The MCP server lists a tool asking ``Enter your\nPIN`` (adv29z K12, devnet).

Severity: MEDIUM (the shape of ``test_adv29yz_soft_line_break_clause.py`` through the
MCP SDK's client over stdio).

Observed on main: the market mech's owner moves its manifest to one whose ``signer``
argument says ``Enter your\nPIN`` (a soft line break: one line to a reader);
``tools/list`` lists the tool.

Expected: it is not listed (``secret_argument``), as ``Enter your PIN`` is not.
"""

from pathlib import Path

from scripts.devnet import Devnet
from tests.adversary.test_adv29s_instruction_unclosed_markup import listed_for


def test_a_pin_request_wrapped_across_lines_is_not_listed(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """A reader sees "Enter your PIN"; the server must refuse the tool."""
    served = listed_for(chain_snapshot, tmp_path, "Enter your\nPIN")
    asked = "" if served is None else served.input_schema["properties"]["signer"]
    # observed on main: listed
    assert served is None, asked
