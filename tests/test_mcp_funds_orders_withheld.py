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

"""A paid structured answer ordering a payment in the widened classes is withheld (fix29zv).

The server's path for adv29zy F4: the value of a delivered answer whose string orders
a payment or a call again (``model_orders`` classes widened) is not delivered as it
is; honest values using the same verbs are.
"""

import json

import pytest
from mech_catalogue_core.tests.model.test_funds_orders_classes import HONEST, ORDERS

from tests.test_mcp_answer_envelope import _answer

TIDE = {"type": "object", "properties": {"tide": {"type": "string"}}}


@pytest.mark.parametrize("order", ORDERS[:6] + ORDERS[-6:])
def test_an_answer_ordering_a_payment_is_withheld(order: str) -> None:
    """The structured value holding the order is not the answer delivered."""
    value = {"tide": f"High 6.1 m at 14:02. {order}"}
    result = _answer(TIDE, json.dumps(value).encode())
    assert dict(result.structured_content or {})["answer"] != value


@pytest.mark.parametrize("text", HONEST[:10])
def test_an_honest_answer_is_delivered_as_it_is(text: str) -> None:
    """The same verbs in honest text: the value delivered unchanged."""
    value = {"tide": f"High 6.1 m at 14:02. {text}"}
    result = _answer(TIDE, json.dumps(value).encode())
    assert dict(result.structured_content or {})["answer"] == value
