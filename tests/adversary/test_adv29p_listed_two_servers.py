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

"""One server's failed write erases the shared listed record; the other's says complete.

Severity: LOW-MEDIUM (adv29p; a paid answer lost at every read after a restart, as in
adv29l; it takes two servers on one state folder, as ``listed_file`` supports, and
one failed write of one of them: the lock past ``LOCK_WAIT``, a full disk).

``ListedSchemas.save`` removes ``listed-schemas.json`` when its write fails ("a file
missing what was served is worse than none ... a missing file is then read as not
complete"). The file is shared: the other server's next write finds it missing and
``write_memory`` takes a missing file as "nothing to add" (``complete`` stays true),
so it writes a record that says complete and lacks every name the first server
listed. Restarted, the first server answers ``NEVER_LISTED`` for a tool its
sessionless client did list, and the answer is structured against the current schema
only (refused by the client when the schema changed since its listing:
:mod:`.test_adv29p_listed_failed_write_devnet` shows the refusal on the devnet).
The journal was written here (``used_before``): the folder's history does not help.

Observed on main: A's save returns False and the file is gone; B's save writes
``"complete":true`` without A's name; A restarted holds ``Held(schemas=(),
unknown=False)`` for it.

Expected: a restarted server holds a name its sessionless client was listed as unknown
(or with the schemas served) whatever another server on the folder wrote since.
"""

from pathlib import Path

import pytest
from filelock import FileLock

from mech_catalogue_cli.mcp_server import listed_file
from mech_catalogue_cli.mcp_server.listed_file import FILE_NAME, LOCK_NAME
from mech_catalogue_cli.mcp_server.listed_schemas import ListedSchemas
from tests.adversary.test_adv29m_listed_record_crowded_out import (
    _sessionless_request,
)

#: the output schema server A's client was listed for tool ``t``
LISTED = {
    "type": "object",
    "properties": {"result": {"type": "string", "maxLength": 3}},
}


def test_a_failed_write_does_not_let_another_server_say_complete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lists ``t``, A's write fails, B writes, A restarts: ``t`` is not "never listed".

    :param tmp_path: the state folder both servers use (its journal written).
    :param monkeypatch: shortens ``LOCK_WAIT`` (30 s) for the test.
    """
    ListedSchemas(tmp_path)  # the folder's first start: an empty, complete record
    server_a = ListedSchemas(tmp_path, used_before=True)
    server_b = ListedSchemas(tmp_path, used_before=True)
    monkeypatch.setattr(listed_file, "LOCK_WAIT", 0.2)
    with FileLock(tmp_path / LOCK_NAME, thread_local=False):  # a write past the wait
        assert server_a.remember(
            _sessionless_request(),
            [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": LISTED}],
            True,
        )
        saved_a = server_a.save(server_a.snapshot())
    file_after_a = (tmp_path / FILE_NAME).exists()
    assert server_b.remember(
        _sessionless_request(),
        [{"name": "u", "inputSchema": {"type": "object"}, "outputSchema": None}],
        True,
    )
    saved_b = server_b.save(server_b.snapshot())
    written = listed_file.read_memory(tmp_path, 4, 4096)
    restarted_a = ListedSchemas(tmp_path, used_before=True)
    held = restarted_a.held(_sessionless_request(), "t")
    observed = (
        f"A saved {saved_a}, file then {file_after_a}; B saved {saved_b}; record "
        f"names {[n for n, _ in written.names]} complete {written.complete}; "
        f"A restarted holds t as {held}"
    )
    assert not saved_a and saved_b, observed  # premise: A's write failed, B's did not
    assert server_a.held(_sessionless_request(), "t") == ((LISTED,), False), observed
    # observed on main: Held(schemas=(), unknown=False), i.e. "never listed"
    assert held.unknown or held.schemas == (LISTED,), observed
