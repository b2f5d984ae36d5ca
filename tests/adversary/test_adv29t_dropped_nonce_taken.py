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

"""A dropped request whose account nonce another transaction took, without a chain (adv29t).

Severity: LOW-MEDIUM (the call stuck for good, said "paid"; see
``test_adv29t_dropped_nonce_taken_devnet``, where the server's own next call with
other arguments takes the nonce after a reorg).

Observed on main: a ``sent`` entry whose request the marketplace does not hold, whose
transaction has no receipt, at a head past the block read before sending, and whose
account nonce is used (the account's mined count 5, the entry's nonce 4): the request
can never be mined, yet every call waits and answers that it was "not delivered ...
it stays paid on chain ... (that will not pay again)"
(``dropped_from_chain`` reads a used nonce as "not gone";
``tests/test_mcp_dropped_request_unit.py`` pins this case as "only waited for").

Expected: such a request is not said to be paid nor waited for at every call: the
call says it is not on chain and resolves it (nothing paid for it).
"""

from pathlib import Path

import pytest

# the delivery's body without IPFS (a fixture, used by name)
from tests.test_mcp_dropped_request_unit import (  # noqa: F401 # pylint: disable=unused-import
    ReorgedMarket,
    _call,
    _server,
    delivered_body,
)


@pytest.mark.usefixtures("delivered_body")
def test_a_dropped_request_whose_nonce_was_used_is_not_said_paid(
    tmp_path: Path,
) -> None:
    """Unknown, no receipt, its nonce used by another transaction: not "paid", twice.

    :param tmp_path: the state folder.
    """
    market = ReorgedMarket(confirmed=5)
    app = _server(tmp_path, market)
    for _ in range(2):
        text = str(_call(app).content[0].text)
        assert "stays paid on chain" not in text, text
