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

"""One reading of a mech's unread fields decides both "read it apart" and "keep its facts".

``read_apart.own_getters_failed`` (where a mech is read next) and
``facts_kept.failed_on_its_own`` (whether it keeps its last good facts) both read
:attr:`MechFacts.unread` through :func:`read_apart.fields_unread_for`; each keeps its own
question: its own getters' calls failing, and a failure that was not a call left unread.
"""

from typing import FrozenSet, Tuple

import pytest
from mech_catalogue_core.chain.facts_kept import failed_on_its_own
from mech_catalogue_core.chain.read_apart import (
    OWN_FIELDS,
    fields_unread_for,
    own_getters_failed,
)
from mech_catalogue_core.model.market import (
    UNREAD_CALL_FAILED,
    UNREAD_NO_KARMA,
    UNREAD_NOT_APPLICABLE,
    UNREAD_UNDECODABLE,
    MechFacts,
)

MECH = "0x" + "4d" * 20
BOTH = frozenset({UNREAD_CALL_FAILED, UNREAD_UNDECODABLE})


@pytest.mark.parametrize(
    "unread, reasons, fields",
    [
        ((), BOTH, frozenset()),
        ((("karma", UNREAD_NO_KARMA),), BOTH, frozenset()),
        ((("payment_type", UNREAD_NOT_APPLICABLE),), BOTH, frozenset()),
        ((("requests", UNREAD_CALL_FAILED),), {UNREAD_CALL_FAILED}, {"requests"}),
        ((("requests", UNREAD_UNDECODABLE),), {UNREAD_CALL_FAILED}, frozenset()),
        (
            (("requests", UNREAD_UNDECODABLE), ("karma", UNREAD_CALL_FAILED)),
            BOTH,
            {"requests", "karma"},
        ),
    ],
)
def test_the_fields_unread_for_a_reason(
    unread: Tuple[Tuple[str, str], ...], reasons: FrozenSet[str], fields: FrozenSet[str]
) -> None:
    """Only the reasons asked count; a field unread as not applicable never does.

    :param unread: the facts' unread fields and reasons.
    :param reasons: the reasons looked for.
    :param fields: the fields found.
    """
    assert fields_unread_for(MechFacts(MECH, unread=unread), reasons) == fields


@pytest.mark.parametrize("name", sorted(OWN_FIELDS))
def test_a_getter_that_failed_is_its_own_unless_its_call_was_left_unread(
    name: str,
) -> None:
    """Each own getter's failed call: read apart, and kept only when left unread.

    :param name: the field of the mech's own getter.
    """
    fact = MechFacts(MECH, unread=((name, UNREAD_CALL_FAILED),))
    assert own_getters_failed(fact)
    assert failed_on_its_own(fact, frozenset())
    assert not failed_on_its_own(fact, frozenset({name}))


def test_the_two_questions_differ_where_they_should() -> None:
    """Garbled returns and marketplace calls about a mech: its doing, not its getters'.

    A return that did not decode is the mech's doing, not a getter's call failing; a
    marketplace call about the mech that failed is its doing, not its getter's.
    """
    garbled = MechFacts(MECH, unread=(("max_delivery_rate", UNREAD_UNDECODABLE),))
    assert failed_on_its_own(garbled, frozenset()) and not own_getters_failed(garbled)
    about = MechFacts(MECH, unread=(("marketplace_deliveries", UNREAD_CALL_FAILED),))
    assert failed_on_its_own(about, frozenset()) and not own_getters_failed(about)
