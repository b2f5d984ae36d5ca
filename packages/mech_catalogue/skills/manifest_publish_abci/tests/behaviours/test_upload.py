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

"""PublishUploadBehaviour: every branch."""

import time
from typing import Any, Dict, cast

import pytest

from packages.mech_catalogue.skills.manifest_publish_abci.behaviours.upload import (
    PublishUploadBehaviour,
)
from packages.mech_catalogue.skills.manifest_publish_abci.params import (
    PublishSettings,
)
from packages.mech_catalogue.skills.manifest_publish_abci.tests.behaviour_case import (
    PublishBehaviourCase,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    IpfsMessage,
)
from packages.valory.skills.abstract_round_abci.behaviour_utils import (
    IPFS_CONNECTION_ID,
)


class TestPublishUploadBehaviour(PublishBehaviourCase):
    """PublishUploadBehaviour."""

    def reply(self, request: Any, **kwargs: Any) -> None:
        """Answer an IPFS request."""
        response = self.build_incoming_message(
            message_type=IpfsMessage,
            dialogue_reference=(request.dialogue_reference[0], "stub"),
            target=request.message_id,
            message_id=-1,
            to=str(self.skill.skill_context.skill_id),
            sender=str(IPFS_CONNECTION_ID),
            **kwargs,
        )
        self.skill.skill_context.handlers.ipfs.handle(response)
        self.behaviour.act_wrapper()

    def run_upload(self, read_back: str) -> str:
        """Store, answer, read back, answer; return the verified digest sent."""
        capture = self.enter(
            PublishUploadBehaviour, {"publish_manifest_digest": self.prepared.digest}
        )
        store = cast(IpfsMessage, self.get_message_from_outbox())
        assert store.performative == IpfsMessage.Performative.STORE_FILES
        ((path, text),) = store.files.items()
        assert path.endswith("manifest.json") and text.encode() == self.prepared.data
        self.reply(
            store,
            performative=IpfsMessage.Performative.IPFS_HASH,
            ipfs_hash="bafy-directory",
        )
        get = cast(IpfsMessage, self.get_message_from_outbox())
        assert get.performative == IpfsMessage.Performative.GET_FILES
        assert get.ipfs_hash == self.prepared.cid
        self.reply(
            get,
            performative=IpfsMessage.Performative.FILES,
            files={self.prepared.cid: read_back},
        )
        verified = capture.payloads[0].verified_digest
        self.finish()
        return verified

    def test_uploaded_and_verified(self) -> None:
        """Read back equal to the upload: the digest is sent."""
        assert self.run_upload(self.prepared.data.decode()) == self.prepared.digest

    def test_read_back_mismatch(self) -> None:
        """Other bytes read back: "" is sent."""
        assert (
            self.run_upload(self.prepared.data.decode().replace("echo", "ecko", 1))
            == ""
        )

    def test_ipfs_down(self) -> None:
        """The connection answers ERROR to the store: "" is sent."""
        capture = self.enter(
            PublishUploadBehaviour, {"publish_manifest_digest": self.prepared.digest}
        )
        store = cast(IpfsMessage, self.get_message_from_outbox())
        self.reply(
            store,
            performative=IpfsMessage.Performative.ERROR,
            reason="connection refused",
        )
        assert capture.payloads[0].verified_digest == ""
        self.finish()

    def test_late_ipfs_answer_is_a_refusal_not_a_crash(self) -> None:
        """The store is answered after publish_ipfs_timeout_seconds: "" is sent (the framework's TimeoutException stops in the adapter)."""
        settings = self.skill.skill_context.params.publish
        self.skill.skill_context.params.__dict__["publish"] = PublishSettings(
            True, settings.tool_packages, settings.overrides, settings.target, 0.05
        )
        capture = self.enter(
            PublishUploadBehaviour, {"publish_manifest_digest": self.prepared.digest}
        )
        store = cast(IpfsMessage, self.get_message_from_outbox())
        assert store.performative == IpfsMessage.Performative.STORE_FILES
        assert not capture.payloads  # still waiting
        time.sleep(0.1)
        self.reply(
            store,
            performative=IpfsMessage.Performative.IPFS_HASH,
            ipfs_hash="bafy-directory",
        )
        self.assert_quantity_in_outbox(0)  # no read-back after a failed store
        assert capture.payloads[0].verified_digest == ""
        self.finish()

    @pytest.mark.parametrize(
        "answer",
        [
            {"performative": IpfsMessage.Performative.ERROR, "reason": "not found"},
            {
                "performative": IpfsMessage.Performative.FILES,
                "files": {"a.json": "{}", "b.json": "{}"},
            },
        ],
        ids=["error", "two-files"],
    )
    def test_read_back_not_one_file(self, answer: Dict[str, Any]) -> None:
        """Stored, but the read-back is an error or not exactly one file: "" is sent."""
        capture = self.enter(
            PublishUploadBehaviour, {"publish_manifest_digest": self.prepared.digest}
        )
        store = cast(IpfsMessage, self.get_message_from_outbox())
        self.reply(
            store,
            performative=IpfsMessage.Performative.IPFS_HASH,
            ipfs_hash="bafy-directory",
        )
        get = cast(IpfsMessage, self.get_message_from_outbox())
        assert get.performative == IpfsMessage.Performative.GET_FILES
        self.reply(get, **answer)
        assert capture.payloads[0].verified_digest == ""
        self.finish()

    def test_other_manifest_than_agreed(self) -> None:
        """This agent generates another digest than the agreed one: "" without uploading."""
        capture = self.enter(
            PublishUploadBehaviour, {"publish_manifest_digest": "0x" + "00" * 32}
        )
        self.assert_quantity_in_outbox(0)
        assert capture.payloads[0].verified_digest == ""
        self.finish()
