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

"""PublishPrepareBehaviour: every branch."""

import shutil
import tempfile
from pathlib import Path
from typing import Tuple

import pytest
from eth_abi import encode
from mech_catalogue_core.publish.publish import (
    PublishTarget,
)

from packages.mech_catalogue.skills.manifest_publish_abci.behaviours.prepare import (
    PublishPrepareBehaviour,
)
from packages.mech_catalogue.skills.manifest_publish_abci.params import (
    PublishSettings,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.base import (
    PublishStatus,
)
from packages.mech_catalogue.skills.manifest_publish_abci.tests.behaviour_case import (
    OVERRIDES,
    SAFE,
    TOOL_PACKAGE,
    PublishBehaviourCase,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    LEGACY,
    _CapturePayload,
)


class TestPublishPrepareBehaviour(PublishBehaviourCase):
    """PublishPrepareBehaviour."""

    def status_after(
        self, exists: bool, able: bool, onchain: bytes
    ) -> Tuple[str, str, str]:
        """Run with the given chain answers; return the payload values."""
        capture = self.enter(PublishPrepareBehaviour, {})
        self.answer_reads(exists, able, onchain)
        payload = capture.payloads[0]
        self.finish()
        return payload.status, payload.manifest_digest, payload.onchain_digest

    def test_update_when_digests_differ(self) -> None:
        """A new manifest: status update with both digests."""
        onchain = b"\x11" * 32
        assert self.status_after(True, True, onchain) == (
            PublishStatus.UPDATE.value,
            self.prepared.digest,
            "0x" + onchain.hex(),
        )

    def test_up_to_date_when_equal(self) -> None:
        """The registry already holds this manifest: up_to_date (no transaction follows)."""
        onchain = bytes.fromhex(self.prepared.digest[2:])
        assert (
            self.status_after(True, True, onchain)[0] == PublishStatus.UP_TO_DATE.value
        )

    def test_safe_not_authorised(self) -> None:
        """The Safe may not change the hash (isAbleChangeHash false): not_authorised."""
        assert (
            self.status_after(True, False, b"\x11" * 32)[0]
            == PublishStatus.NOT_AUTHORISED.value
        )

    def test_service_not_found(self) -> None:
        """The service id does not exist: mech_not_found."""
        assert (
            self.status_after(False, False, b"\x00" * 32)[0]
            == PublishStatus.MECH_NOT_FOUND.value
        )

    def test_chain_unreadable(self) -> None:
        """The ledger connection fails: read_failed."""
        capture = self.enter(PublishPrepareBehaviour, {})
        self.answer_multicall(0, [], error=True)
        assert capture.payloads[0].status == PublishStatus.READ_FAILED.value
        self.finish()

    def enter_legacy(self) -> _CapturePayload:
        """Publish to legacy mech 3 instead, and enter the prepare behaviour.

        :return: the payload capture.
        """
        self.skill.skill_context.params.__dict__["publish"] = PublishSettings(
            True,
            (str(TOOL_PACKAGE),),
            OVERRIDES,
            PublishTarget("legacy_mech_registry", LEGACY, 3),
            5.0,
        )
        return self.enter(PublishPrepareBehaviour, {})

    def test_legacy_registry_owned_by_the_safe(self) -> None:
        """A legacy mech NFT owned by the Safe: one batch (exists, ownerOf, getHashes); update."""
        capture = self.enter_legacy()
        old = b"\x22" * 32
        self.answer_multicall(
            9,
            [
                (True, encode(["bool"], [True])),
                (True, encode(["address"], [SAFE])),
                (True, encode(["uint256", "bytes32[]"], [1, [old]])),
            ],
        )
        payload = capture.payloads[0]
        assert (payload.status, payload.onchain_digest) == (
            PublishStatus.UPDATE.value,
            "0x" + old.hex(),
        )
        self.finish()

    def test_legacy_registry_owned_by_someone_else(self) -> None:
        """The NFT belongs to another account than the Safe: not_authorised."""
        capture = self.enter_legacy()
        self.answer_multicall(
            9,
            [
                (True, encode(["bool"], [True])),
                (True, encode(["address"], [LEGACY])),
                (True, encode(["uint256", "bytes32[]"], [0, []])),
            ],
        )
        assert capture.payloads[0].status == PublishStatus.NOT_AUTHORISED.value
        self.finish()

    def test_garbage_return_is_read_failed(self) -> None:
        """A registry answer that does not decode: read_failed, no crash."""
        capture = self.enter(PublishPrepareBehaviour, {})
        self.answer_multicall(9, [(True, b"\x01")])
        assert capture.payloads[0].status == PublishStatus.READ_FAILED.value
        self.finish()

    def test_no_safe_is_not_authorised(self) -> None:
        """No service Safe in the synchronized data: not_authorised, nothing read."""
        capture = self.enter(PublishPrepareBehaviour, {"safe_contract_address": ""})
        self.assert_quantity_in_outbox(0)
        assert capture.payloads[0].status == PublishStatus.NOT_AUTHORISED.value
        self.finish()

    def test_disabled_reads_nothing(self) -> None:
        """publish_enabled false: status disabled, no request at all."""
        self.skill.skill_context.params.__dict__["publish"] = PublishSettings()
        capture = self.enter(PublishPrepareBehaviour, {})
        assert capture.payloads[0].status == PublishStatus.DISABLED.value
        self.finish()

    def test_invalid_package(self) -> None:
        """A tool package that cannot be derived: invalid_manifest, nothing read."""
        settings = self.skill.skill_context.params.publish
        self.skill.skill_context.params.__dict__["publish"] = PublishSettings(
            True, ("/nonexistent/tool",), {}, settings.target, 5.0
        )
        capture = self.enter(PublishPrepareBehaviour, {})
        assert capture.payloads[0].status == PublishStatus.INVALID_MANIFEST.value
        self.finish()

    @pytest.mark.timeout(120, method="thread")  # hang guard only (ends pytest)
    def test_hostile_tool_module_is_derived_within_the_budget(self) -> None:
        """A 2 KB module doubling a default 60 times: the period still prepares a manifest.

        Derivation runs inside the behaviour (the agent's loop), so it must be bounded: the
        static evaluator's budget leaves the default unknown and the manifest is generated.
        """
        folder = Path(tempfile.mkdtemp(prefix="hostile-tool-"))
        try:
            (folder / "component.yaml").write_text(
                (TOOL_PACKAGE / "component.yaml")
                .read_text()
                .replace("echo_tool", "hostile_tool")
            )
            (folder / "hostile_tool.py").write_text(
                'ALLOWED_TOOLS = ["hostile"]\nA = [1]\n'
                + "A = [A, A]\n" * 60
                + "B = {tuple(A)}\n"
                + 'def run(**kwargs):\n    """Run."""\n'
                + '    return kwargs["prompt"], kwargs.get("n", A), None, None\n'
            )
            settings = self.skill.skill_context.params.publish
            self.skill.skill_context.params.__dict__["publish"] = PublishSettings(
                True, (str(folder),), {}, settings.target, 5.0
            )
            capture = self.enter(PublishPrepareBehaviour, {})
            self.answer_reads(True, True, b"\x11" * 32)
            payload = capture.payloads[0]
            assert payload.status == PublishStatus.UPDATE.value
            assert payload.manifest_digest.startswith("0x")
            self.finish()
        finally:
            shutil.rmtree(folder, ignore_errors=True)
