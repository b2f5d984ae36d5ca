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

"""The journal's list of writes (``<state-dir>/calls/changes.log``).

Every :meth:`.store.Journal.save` appends the entry's key, one line, after the entry's
rename, so a reader (``spending.JournalIndex``) re-reads only the entries written since
it last looked, by any server process sharing the folder.
"""

#: the journal's list of writes, in ``<dir>/calls/``: one line (a call key) per entry
#: written, appended after the entry's rename, so a reader (``spending.JournalIndex``)
#: re-reads only the entries written since it last looked, by any server process
CHANGES_FILE = "changes.log"
