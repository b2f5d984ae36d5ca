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

"""A restarted agent builds kept last-good entries as the others (issue 10, item 5).

Behaviour level: the skill's SharedState loads the last agreed catalogue from
``state_dir`` at start-up, and FetchManifestsBehaviour starts from it when its digest is
the agreed one. The gateway is the test harness (an HTTP 504 for the missing manifest).
"""

from pathlib import Path
from typing import Any, cast

from mech_catalogue_core.adapters.background import OneWorker
from mech_catalogue_core.adapters.directory import DirectoryStore
from mech_catalogue_core.catalogue.exposure import (
    SHARED_STATE_KEY,
)
from mech_catalogue_core.catalogue.fetching import (
    KEPT_LAST_GOOD,
)
from mech_catalogue_core.catalogue.store import (
    CatalogueFile,
)
from mech_catalogue_core.chain.registry import (
    DigestRead,
)
from mech_catalogue_core.ipfs.cid import (
    DAG_PB,
    digest_to_cid,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_OK,
    STATUS_UNAVAILABLE,
)

from packages.mech_catalogue.skills.tool_metadata_abci.models import SharedState
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    FetchCase,
    dag_pb_digest,
    manifest,
    ref,
)


class TestRestartedAgent(FetchCase):
    """Period 1 agreed with a good manifest; the agent restarts; period 2's manifest is gone."""

    def _first_period(self) -> str:
        good = manifest("summarise")
        digest = dag_pb_digest(good)
        capture = self.start([DigestRead(ref(1), digest)])
        self.answer_gateway(digest_to_cid(digest, DAG_PB), 200, good)
        self.agree(capture.payloads[0])
        return cast(str, capture.payloads[0].catalogue_digest)

    def _restart(self, state_dir: Any) -> SharedState:
        """Forget everything in memory, as a new process would, and set the state up again."""
        state = cast(SharedState, self.skill.skill_context.state)
        self.skill.skill_context.params.__dict__["state_dir"] = state_dir
        state.exposed = None
        state.candidate = None
        self.skill.skill_context.shared_state.pop(SHARED_STATE_KEY, None)
        state.load_kept_catalogue(state_dir)
        return state

    def _second_period(self, agreed: str) -> Any:
        gone = dag_pb_digest(b'{"tools": ["not pinned anywhere"]}')
        capture = self.start([DigestRead(ref(1), gone)], catalogue_digest=agreed)
        self.answer_both_codecs_twice(gone, 504, b"")
        return capture

    def test_kept_catalogue_on_disk_gives_the_same_kept_entry(
        self, tmp_path: Path
    ) -> None:
        """With state_dir: after the restart the candidate serves the last good manifest."""
        state = cast(SharedState, self.skill.skill_context.state)
        state.catalogue_file = CatalogueFile(
            DirectoryStore(str(tmp_path / "catalogues")), OneWorker("catalogue-file")
        )
        agreed = self._first_period()
        state.catalogue_file.flush()  # written on the writer thread
        assert (tmp_path / "catalogues" / f"{agreed}.catalogue.json").exists()
        restarted = self._restart(str(tmp_path))
        assert restarted.kept_catalogue is not None
        assert (
            restarted.kept_catalogue.digest()
            == restarted.kept_catalogue_digest
            == agreed
        )
        self._second_period(agreed)
        assert restarted.candidate is not None
        mech = restarted.candidate[0].mech(ref(1))
        assert mech is not None and mech.status == STATUS_OK
        assert [p.code for p in mech.problems][-1] == KEPT_LAST_GOOD
        assert "HTTP 504" in " ".join(restarted.fetch_diagnostics.values())
        assert "504" not in restarted.candidate[0].to_json()

    def test_without_state_dir_the_restarted_agent_differs(
        self, tmp_path: Path
    ) -> None:
        """state_dir null (the old behaviour): the restarted agent builds unavailable."""
        state = cast(SharedState, self.skill.skill_context.state)
        state.catalogue_file = CatalogueFile(None)
        agreed = self._first_period()
        restarted = self._restart(None)
        assert restarted.kept_catalogue is None
        self._second_period(agreed)
        assert restarted.candidate is not None
        mech = restarted.candidate[0].mech(ref(1))
        assert mech is not None and mech.status == STATUS_UNAVAILABLE
        assert not list(tmp_path.iterdir())
