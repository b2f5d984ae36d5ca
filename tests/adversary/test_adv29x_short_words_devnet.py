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
r"""Short secret words read as a person reads them, on the devnet (adv29x F2, F4, F6).

Severity: MEDIUM (the shapes of ``test_adv29x_short_words.py`` through the MCP SDK's
client over stdio).

Observed on main: the market mech's owner moves its manifest to one whose ``signer``
argument says ``Enter your P*IN code*`` (emphasis from inside the word to the last
``*``: a person reads "Enter your PIN code") or ``Enter your ΡΙΝ`` (Greek capitals);
``tools/list`` lists the tool. One saying ``The pin number of the GPIO line to read``
is not listed.

Expected: the first two are not listed (``secret_argument``); the GPIO tool is.
"""

from pathlib import Path

import pytest

from scripts.devnet import Devnet
from tests.adversary.test_adv29s_instruction_unclosed_markup import listed_for
from tests.adversary.test_adv29x_short_words import shown


@pytest.mark.parametrize(
    "asking", ["Enter your P*IN code*", "Enter your \u03a1\u0399\u039d"]
)
def test_a_tool_asking_for_a_pin_a_person_reads_is_not_listed(
    chain_snapshot: Devnet, tmp_path: Path, asking: str
) -> None:
    """Emphasis or Greek capitals leave "PIN" whole to a reader; the tool is refused."""
    assert "PIN" in shown(asking) or "\u03a1\u0399\u039d" in asking
    served = listed_for(chain_snapshot, tmp_path, asking)
    asked = "" if served is None else served.input_schema["properties"]["signer"]
    # observed on main: listed
    assert served is None, asked


def test_a_tool_reading_a_gpio_pin_is_listed(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """A board's pin number asks for nothing; the tool is served."""
    served = listed_for(
        chain_snapshot, tmp_path, "The pin number of the GPIO line to read"
    )
    # observed on main: not listed (refused as asking for a PIN)
    assert served is not None
