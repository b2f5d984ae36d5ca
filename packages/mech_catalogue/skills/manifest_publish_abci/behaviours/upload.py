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

"""PublishUploadBehaviour: upload through the valory/ipfs connection, read back by the manifest's CID, re-hash."""

import os
import shutil
import tempfile
from typing import Generator

from mech_catalogue_core.ipfs.size_cap import (
    read_limit,
)
from mech_catalogue_core.publish.publish import (
    IPFS_UNAVAILABLE,
    PreparedManifest,
    PublishError,
    check_read_back,
)

from packages.mech_catalogue.skills.manifest_publish_abci.behaviours.base import (
    PublishBaseBehaviour,
)
from packages.mech_catalogue.skills.manifest_publish_abci.payloads import (
    PublishUploadPayload,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.upload import (
    PublishUploadRound,
)

MANIFEST_FILE = "manifest.json"


class PublishUploadBehaviour(
    PublishBaseBehaviour
):  # pylint: disable=too-many-ancestors
    """Send the verified digest, or "" when the upload or the read-back failed."""

    matching_round = PublishUploadRound

    def async_act(self) -> Generator:
        """Upload, verify, send the payload, wait for the round to end.

        :yield: while waiting for IPFS and Tendermint.
        """
        with self.context.benchmark_tool.measure(self.behaviour_id).local():
            verified = ""
            try:
                prepared = self.prepared_manifest()
                if prepared.digest != self.synchronized_data.publish_manifest_digest:
                    raise PublishError(
                        IPFS_UNAVAILABLE,
                        f"this agent generated {prepared.digest}, not the agreed "
                        f"{self.synchronized_data.publish_manifest_digest}; did the tool packages change?",
                    )
                verified = yield from self.upload(prepared)
                self.context.logger.info(
                    f"publish: uploaded and verified {prepared.cid}"
                )
            except PublishError as exc:
                self.context.logger.error(f"publish: upload not verified: {exc}")
            payload = PublishUploadPayload(self.context.agent_address, verified)
        with self.context.benchmark_tool.measure(self.behaviour_id).consensus():
            yield from self.send_a2a_transaction(payload)
            yield from self.wait_until_round_end()
        self.set_done()

    def upload(self, prepared: PreparedManifest) -> Generator[None, None, str]:
        """Store the manifest, then read it back by its own CID and re-hash it.

        The connection wraps a stored file in a directory and answers with the
        directory's hash; reading back by the file's CID proves the node serves the
        manifest under the exact CID readers derive from the on-chain digest.

        :param prepared: the manifest.
        :yield: while waiting for the IPFS connection.
        :return: the verified digest.
        :raises PublishError: IPFS_UNAVAILABLE or READBACK_MISMATCH.
        """
        timeout = self.publish_settings.ipfs_timeout
        # one folder per upload: agents of a service may share a machine and a /tmp
        folder = tempfile.mkdtemp(prefix="mech-catalogue-publish-")
        try:
            stored = yield from self.store_text_on_ipfs(
                os.path.join(folder, MANIFEST_FILE),
                prepared.data.decode("utf-8"),
                timeout,
            )
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        if stored is None:
            raise PublishError(
                IPFS_UNAVAILABLE,
                "the IPFS connection did not store the manifest (its answer is logged above)",
            )
        text = yield from self.read_text_from_ipfs(prepared.cid, timeout)
        if text is None:
            raise PublishError(
                IPFS_UNAVAILABLE,
                f"the IPFS node does not serve {prepared.cid} as one file (its answer is logged above)",
            )
        # the connection has read the whole file already (unbounded, see
        # docs/skill-contract.md); keep no more than the size-cap policy allows
        limit = read_limit(len(prepared.data))
        return check_read_back(prepared, text[:limit].encode("utf-8")[:limit])
