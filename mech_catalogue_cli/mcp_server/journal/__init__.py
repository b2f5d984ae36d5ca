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

"""The MCP server's call journal: what a paid call sent, kept so that it is never paid twice.

- :mod:`.entry`: one call's record (:class:`JournalEntry`) and its strict reading back
  (:func:`entry_from_json`);
- :mod:`.store`: the folder of entries (:class:`Journal`: atomic writes, the
  cross-process send lock) and the correction of a mined request's id;
- :mod:`.changes`: the list of writes (``calls/changes.log``) the spending cap's index
  reads.
"""

from . import changes
from .changes import CHANGES_FILE
from .entry import JournalEntry, entry_from_json
from .store import Journal, JournalError, correct_request_id, loaded, recorded, saved

__all__ = [
    "CHANGES_FILE",
    "changes",
    "Journal",
    "JournalEntry",
    "JournalError",
    "correct_request_id",
    "entry_from_json",
    "loaded",
    "recorded",
    "saved",
]
