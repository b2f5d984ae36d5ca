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

"""What a call refused off-chain says about its money: decided from its journal entry.

The one place an :class:`.offchain.OffchainRefusal` gets its last words (adversarial
reviews adv29h, adv29i). The poster's text says what happened to one post; whether the
mech may still charge the call is a fact of the call's entry, saved after the post:

- **held**: any request of the call may still be settled (:func:`.outstanding.holds_of`:
  the current one unless marked ``unsent``, ``passed`` or ``released``, and each earlier
  attempt not passed): the call says :data:`.offchain.HELD_REFUSAL`, never "nothing was
  sent", whichever post failed how (a retry that could not connect while an earlier
  request of the call is held; a post after a deposit that could not connect);
- **a deposit made** (``extra.auto_prepay``): said, with its amount, when the refusal's
  own text does not say it; never "nothing was sent" after it;
- otherwise, a post that never connected says "nothing was sent": nobody holds the
  signed request, nothing was deposited.
"""

from mech_catalogue_core.model.payment import payment_terms, say_amount

from .auto_prepay import AUTO_PREPAY_KEY, deposit_counted
from .journal import JournalEntry
from .offchain import HELD_REFUSAL, OffchainRefusal
from .outstanding import holds_of

#: what a call says when its post never connected and no request of it is held
UNSENT_WORDS = "nothing was sent"
#: what it says then when an automatic deposit was made for the call
UNSENT_AFTER_DEPOSIT = (
    "the signed request never reached its mech, so it can never be settled nor charged"
)


def _deposit_words(entry: JournalEntry) -> str:
    """The call's automatic deposit in words, or "" when it made none (pure).

    :param entry: the call's journal entry.
    :return: e.g. "an automatic deposit of 10 wei was made for this call (it stays in
        your prepaid balance ...)".
    """
    if entry.extra.get(AUTO_PREPAY_KEY) is None:
        return ""
    try:
        amount = say_amount(
            deposit_counted(entry.extra), payment_terms(entry.payment_type).asset
        )
    except ValueError:
        amount = "an amount its journal entry does not say readably"
    return (
        f"an automatic deposit of {amount} was made for this call (it stays in your "
        "prepaid balance; `mech-catalogue prepay --show` shows it)"
    )


def said(refused: OffchainRefusal, entry: JournalEntry) -> OffchainRefusal:
    """The refusal as the call ends with it, from the call's entry as just saved (pure).

    :param refused: the poster's (or the automatic deposit's) refusal.
    :param entry: the call's journal entry, saved after the refusal (its ``unsent``
        mark, its earlier attempts, its ``auto_prepay`` record).
    :return: the text with what the mech may still charge: the held sentence when any
        request of the call may still be settled; the deposit when one was made and the
        text does not say it; "nothing was sent" only when neither. Its flags are kept.
    """
    words = [str(refused)]
    deposit = "" if refused.deposited else _deposit_words(entry)
    if holds_of(entry):
        words.append(HELD_REFUSAL)
    elif refused.unsent:
        deposited = refused.deposited or bool(deposit)
        words.append(UNSENT_AFTER_DEPOSIT if deposited else UNSENT_WORDS)
    if deposit:
        words.append(deposit)
    text = OffchainRefusal("; ".join(words))
    text.challenged, text.deposited = refused.challenged, refused.deposited
    text.unsent = refused.unsent
    return text
