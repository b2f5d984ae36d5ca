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

"""A listed record that failed to be written looks new after a restart (adv29p).

Severity: MEDIUM (a paid answer lost at every read, as in adv29l: the MCP SDK's client
raises instead of returning it; it takes one failed write of ``listed-schemas.json``
at a listing made before the state folder's first paid call: a full disk, the lock
held past ``LOCK_WAIT`` by a second server on the folder, an I/O error).

``ListedSchemas.save`` removes ``<state-dir>/listed-schemas.json`` when it cannot write
it ("a file missing what was served is worse than none ... a missing file is then read
as not complete") and the log says "after a restart their answers are text until they
list the tools again". But a missing file is read as not complete only when
``used_before``, which ``server.py`` takes from the journal (``calls/changes.log``
exists), and a listing writes no journal. A state folder whose sessionless client was
listed but never paid yet is therefore read after the restart as a first start: the
record is empty and *complete*, so ``held`` answers ``NEVER_LISTED`` for a tool the
client did list, and the answer is checked against the current schema only.

Observed on main (this test, no chain): the save fails (``False``), the file is gone,
and a restarted ``ListedSchemas`` answers ``Held(schemas=(), unknown=False)`` for the
tool listed; :mod:`.test_adv29p_listed_failed_write_devnet` shows the paid answer
refused by the SDK's client.

Expected: after a failed write the restarted record holds the name as unknown (or the
schemas the client was served), as the log promises; for instance, the folder is
"used before" once the record was written, or a failed write leaves a mark that is
not the file's absence.
"""

from pathlib import Path
from typing import Any, Dict, List

from mech_catalogue_cli.mcp_server.listed_file import FILE_NAME, LOCK_NAME
from mech_catalogue_cli.mcp_server.listed_schemas import ListedSchemas
from tests.adversary.test_adv29m_listed_record_crowded_out import (
    _sessionless_request,
)

#: the output schema the client was listed
LISTED = {
    "type": "object",
    "properties": {"result": {"type": "string", "maxLength": 3}},
}


def _listing() -> List[Dict[str, Any]]:
    """The catalogue's one-page listing: one tool.

    :return: MCP Tools.
    """
    return [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": LISTED}]


def test_a_failed_write_is_not_read_as_a_first_start(tmp_path: Path) -> None:
    """Listed, not written, restarted: the tool is unknown, not never listed.

    :param tmp_path: the state folder (no journal written yet: no paid call).
    """
    listed = ListedSchemas(tmp_path, used_before=False)  # first start: file written
    assert (tmp_path / FILE_NAME).exists()
    (tmp_path / LOCK_NAME).unlink(missing_ok=True)
    (tmp_path / LOCK_NAME).mkdir()  # stands for any OSError of the write (ENOSPC...)
    assert listed.remember(_sessionless_request(), _listing(), True)
    saved = listed.save(listed.snapshot())
    before = listed.held(_sessionless_request(), "t")
    (tmp_path / LOCK_NAME).rmdir()  # the failure has passed
    again = ListedSchemas(tmp_path, used_before=False)  # restart, still no journal
    after = again.held(_sessionless_request(), "t")
    observed = f"saved {saved}; before {before}; after the restart {after}"
    assert not saved, observed  # premise: the write failed
    assert before == ((LISTED,), False), observed
    # observed on main: Held(schemas=(), unknown=False), i.e. "never listed"
    assert after.unknown or after.schemas == (LISTED,), observed
