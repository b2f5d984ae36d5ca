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

"""Guards of FetchManifestsBehaviour that a one-line breakage removed unnoticed (issue 18).

Driven through the skill's own behaviour test harness (open-autonomy's
``FSMBehaviourBaseCase``, ``tests/behaviour_case.py::ToolMetadataBehaviourCase``): the
connections are answered by the harness, nothing else is mocked.

- The behaviour starts from its exposed catalogue only when that catalogue is the one
  the agents agreed on (``synchronized_data.catalogue_digest``); an agent whose own
  catalogue lost the vote must rebuild from the manifests, or it keeps diverging.
- A gateway request nobody answers expires after ``fetch_timeout_seconds``: the period
  goes on and the mech is ``unavailable`` with ``fetch_failed``.
"""

import time
from typing import Any, Callable

import pytest
from mech_catalogue_core.catalogue.exposure import (
    ExposedCatalogue,
)
from mech_catalogue_core.catalogue.fetching import (
    FETCH_FAILED,
)
from mech_catalogue_core.chain.registry import (
    DigestRead,
)
from mech_catalogue_core.ipfs.cid import (
    DAG_PB,
    RAW,
    digest_to_cid,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_OK,
    STATUS_UNAVAILABLE,
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.tool import (
    Provenance,
    Tool,
)

from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    GATEWAY,
    ToolMetadataBehaviourCase,
    dag_pb_digest,
    manifest,
    ref,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviours.test_fetch_manifests import (
    TestFetchManifestsBehaviour as _Harness,
)
from packages.valory.protocols.http import HttpMessage


class FetchHarness(ToolMetadataBehaviourCase):
    """The fetch behaviour's test helpers, without the harness class's own tests."""

    start: Callable[..., Any] = _Harness.start  # type: ignore[assignment]
    agree: Callable[..., Any] = _Harness.agree  # type: ignore[assignment]
    exposed: Callable[..., Any] = _Harness.exposed  # type: ignore[assignment]
    agreed_catalogue: Callable[..., Any] = _Harness.agreed_catalogue  # type: ignore[assignment]
    agreed_entry: Callable[..., Any] = _Harness.agreed_entry  # type: ignore[assignment]


def own_catalogue(digest: str) -> Catalogue:
    """A catalogue this agent exposed: mech 1 under ``digest`` offering 'stale-tool'.

    Parsing the manifest under that digest gives 'summarise', so a payload naming
    'stale-tool' proves the entry was reused from this catalogue, not parsed.

    :param digest: the on-chain digest of mech 1.
    :return: the catalogue.
    """
    return Catalogue.build(
        [
            Mech(
                ref=ref(1),
                digest=digest,
                cid=digest_to_cid(digest, DAG_PB),
                status=STATUS_OK,
                tools=(
                    Tool(
                        name="stale-tool",
                        description="from this agent's own catalogue",
                        provenance=Provenance("name_only", ref(1)),
                    ),
                ),
                observed_block=10,
            )
        ]
    )


class TestFetchManifestsGuards(FetchHarness):
    """FetchManifestsBehaviour guards."""

    def _publish_own(self) -> str:
        data = manifest("summarise")
        digest = dag_pb_digest(data)
        state = self.skill.skill_context.state
        state.manifest_cache.put(digest_to_cid(digest, DAG_PB), data)
        own = own_catalogue(digest)
        state.exposed = ExposedCatalogue(
            own, own.digest(), "ab" * 32, 10, time.time(), 1
        )
        return digest

    def test_catalogue_the_agents_did_not_agree_on_is_not_reused(self) -> None:
        """This agent's exposed catalogue lost the vote: the next one is rebuilt from the manifests."""
        digest = self._publish_own()
        capture = self.start([DigestRead(ref(1), digest)], catalogue_digest="ee" * 32)
        assert self.views_of(capture.payloads[0])["mech_tools"] == ["summarise"]

    def test_agreed_catalogue_is_reused(self) -> None:
        """Counterpart: when it is the agreed one, its unchanged entries are reused (not parsed)."""
        digest = self._publish_own()
        agreed = self.skill.skill_context.state.exposed.catalogue_digest
        capture = self.start([DigestRead(ref(1), digest)], catalogue_digest=agreed)
        assert self.views_of(capture.payloads[0])["mech_tools"] == ["stale-tool"]

    @pytest.mark.timeout(60)
    def test_unanswered_fetch_expires(self) -> None:
        """No gateway answer at all: each request expires after fetch_timeout_seconds; the period ends."""
        params = self.skill.skill_context.params
        params.__dict__.update(fetch_timeout_seconds=0.05, fetch_retries=0)
        digest = dag_pb_digest(manifest("summarise"))
        capture = self.start([DigestRead(ref(1), digest)])
        asked = []
        for _ in range(40):  # every act waits at most until the earliest deadline
            if capture.payloads:
                break
            while self.get_quantity_in_outbox():  # requests left unanswered
                asked.append(self.outbox_message(HttpMessage).url)
            time.sleep(0.06)
            self.behaviour.act_wrapper()
        assert capture.payloads, "the unanswered request never expired"
        assert asked == [  # dag-pb, then the raw-leaves fallback; each asked once
            f"{GATEWAY}/ipfs/{digest_to_cid(digest, kind)}" for kind in (DAG_PB, RAW)
        ]
        assert self.views_of(capture.payloads[0])["mech_tools"] == []
        self.agree(capture.payloads[0])
        entry = self.agreed_entry(ref(1))
        assert entry.status == STATUS_UNAVAILABLE
        assert entry.problems[0].code == FETCH_FAILED
        # the expiry is this agent's transport detail: logged and kept as a diagnostic,
        # never in the agreed problem (agents behind other gateways must agree)
        assert "fetch_timeout_seconds" not in entry.problems[0].message
        diagnostics = self.skill.skill_context.state.fetch_diagnostics
        assert "fetch_timeout_seconds" in diagnostics[digest]
