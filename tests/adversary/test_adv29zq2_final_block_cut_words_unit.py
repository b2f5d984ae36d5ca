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

"""adv29zq2 W2: the final block's read cut by the call's end is said as "CallTimeSpent".

Severity: LOW (issue #29 (d), words only: nothing is paid or lost; the reader is told
a class name instead of why the call ended).

Every ``Marketplace`` read cut at a call's end says "this call's --timeout (S s) ended
before the node answered" (fix29zp), except :meth:`.market.Marketplace.final_block`
(and :meth:`~.market.Marketplace.final_nonce` through it), whose ``except OSError``
says ``type(exc).__name__``. It is read on a retried call's path
(``ensure_sent`` -> ``held_until_final`` -> ``nonce_final``), so the call's result
reads "the final block could not be read from http://...: CallTimeSpent; request ...
was signed and journalled before this call ...".

Observed on lead29zz 02021e43 (a loopback node holding every method 3 s, the real
``Marketplace``, the call's time already spent): ``final_block(3)`` and
``final_nonce(3)`` raise ``MarketError("the final block could not be read from
http://127.0.0.1:<port>: CallTimeSpent")``; every other read of the class says the
call's ``--timeout``.

Expected: the call's end in the server's sentence (``node_deadline.spent_words``), as
``Marketplace._call`` does.
"""

import time
from typing import Callable

import pytest

from mech_catalogue_cli.mcp_server.market import MarketError
from mech_catalogue_cli.mcp_server.node_deadline import reads_until, time_spent
from tests.test_mcp_call_node_deadline_unit import (  # noqa: F401 # pylint: disable=unused-import
    SlowNode,
    _start_node,
)


@pytest.mark.parametrize("read", ["final_block", "final_nonce"])
def test_the_final_block_cut_says_the_call_s_time(
    start_node: Callable[..., SlowNode], read: str
) -> None:
    """Cut at the call's end: the server's sentence, never a class name.

    :param start_node: starts the loopback node (every method held).
    :param read: the method read.
    """
    market = start_node().market()
    with reads_until(time.monotonic() - 10, 1.0):
        with pytest.raises(MarketError) as raised:
            getattr(market, read)(3)
    assert time_spent(raised.value), raised.value
    text = str(raised.value)
    assert "CallTimeSpent" not in text, text
    assert "this call's --timeout (1 s) ended" in text, text
