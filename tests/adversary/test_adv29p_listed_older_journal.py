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

"""A journal written before ``changes.log`` makes a missing listed record look new (adv29p).

Severity: MEDIUM (a paid answer lost at every read, once per upgrade: the MCP SDK's
client raises instead of returning it, as in adv29l).

``listed_schemas.py`` reads a missing ``listed-schemas.json`` as "not complete" only in
a folder ``used_before``: "the journal was written: a missing file was then lost, or
never written by an older version". ``server.py`` takes that from
``calls/changes.log`` alone, which the journal has written only since ac96838d
(2026-12-02); the MCP server served sessionless (2026-07-28 HTTP) clients since
c97a19cc (2026-11-30), whose journal holds ``calls/<key>.json`` entries and no list.
Upgraded from such a version, the server reads the folder as a first start: the record
is empty and *complete*, so ``held`` answers ``NEVER_LISTED`` for every tool the
sessionless client listed before the upgrade, and an answer is structured against the
current schema only (a schema changed since the client's listing: refused by the
client, as :mod:`.test_adv29p_listed_failed_write_devnet` shows on the devnet).

Observed on main: ``Held(schemas=(), unknown=False)`` for a tool never recorded, in a
folder whose journal holds an entry.

Expected: a folder whose journal holds any entry is used before (the tool unknown to
sessionless clients until listed again).
"""

from pathlib import Path

from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.listed_file import FILE_NAME
from mech_catalogue_cli.mcp_server.server import MechToolServer
from mech_catalogue_cli.mcp_server.settings import CallSettings
from tests.adversary.test_adv29m_listed_record_crowded_out import (
    _sessionless_request,
)

#: nowhere: nothing is fetched or uploaded by this test
UNREACHABLE = "http://127.0.0.2:9/"


def test_an_older_journal_means_the_folder_was_used(tmp_path: Path) -> None:
    """Entries but no list of writes, no record: sessionless names are unknown.

    :param tmp_path: the state folder, as a version before ``changes.log`` left it.
    """
    calls = tmp_path / "calls"
    calls.mkdir()
    (calls / f"{'ab' * 32}.json").write_text("{}", encoding="utf-8")  # an old entry
    journal = Journal(tmp_path)
    server = MechToolServer(
        None, CallSettings(UNREACHABLE, UNREACHABLE), None, journal, tmp_path
    )
    held = server.listed_schemas.held(_sessionless_request(), "any_listed_tool")
    observed = (
        f"changes.log {journal.changes.exists()}; record written "
        f"{(tmp_path / FILE_NAME).exists()}; held {held}"
    )
    assert not journal.changes.exists(), observed  # premise: the older journal
    # observed on main: Held(schemas=(), unknown=False), i.e. "never listed"
    assert held.unknown, observed
