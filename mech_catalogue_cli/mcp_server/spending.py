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

"""What the call journal says was paid: the input of ``--max-spend`` across restarts.

Reads every entry of ``<state-dir>/calls/`` (``market.Journal``) paid in the native
token as a :class:`.spend_cap.PaidRecord`: its request id, price (wei) and when it was
paid (``paid_at``, else when the file was last written) (token payments have per-run caps in their own units).
An entry this server did not write (``market.entry_from_json`` refuses it) is a record
with a problem, so the cap refuses to pay rather than guess its price. The decision is
:meth:`.spend_cap.SpendLedger.count_journal`.
"""

from pathlib import Path
from typing import List

from mech_catalogue_core.model.payment import payment_terms
from mech_catalogue_core.model.vocabulary import PaymentWay

from .market import entry_from_json
from .spend_cap import PaidRecord

#: journal entries read at most for the cap: far more than a window's calls; a folder
#: holding more is read in name order up to it (the rest cannot lower the total)
MAX_JOURNAL_ENTRIES = 100_000


def journal_records(folder: Path) -> List[PaidRecord]:
    """Read the journal folder's entries as paid records (blocking file reads).

    :param folder: ``market.Journal.folder``.
    :return: one record per ``*.json`` entry; an unreadable one has its ``problem``
        naming the file.
    """
    records: List[PaidRecord] = []
    for path in sorted(folder.glob("*.json"))[:MAX_JOURNAL_ENTRIES]:
        try:
            written_at = path.stat().st_mtime
            entry = entry_from_json(path.read_text(encoding="utf-8"), path.stem)
        except FileNotFoundError:  # moved away meanwhile
            continue
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            records.append(
                PaidRecord(
                    "",
                    0,
                    path.stat().st_mtime if path.exists() else 0.0,
                    f"journal entry {path} is not one this server wrote ({exc})",
                )
            )
            continue
        if payment_terms(entry.payment_type).way is not PaymentWay.NATIVE:
            continue  # a token's price is in its own units; its cap is per run
        offchain = entry.extra.get("offchain")
        if isinstance(offchain, dict) and offchain.get("refused"):
            continue  # an off-chain request its mech refused: nothing was paid
        # dated by when it was paid; entries older than ``paid_at`` by their file's time
        records.append(
            PaidRecord(entry.request_id, entry.price, entry.paid_at or written_at)
        )
    return records
