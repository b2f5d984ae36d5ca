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

"""Transaction payloads of the PublishManifestAbciApp (small strings only: digests, a status, a tx hash)."""

from dataclasses import dataclass

from packages.valory.skills.abstract_round_abci.base import BaseTxPayload


@dataclass(frozen=True)
class PublishPreparePayload(BaseTxPayload):
    """What one agent found when preparing the service's manifest.

    :param status: one of ``states.publish_base.PublishStatus`` values.
    :param manifest_digest: ``0x`` hex digest of the generated manifest ("" when none).
    :param onchain_digest: ``0x`` hex digest the registry holds ("" when none / unread).
    """

    status: str
    manifest_digest: str
    onchain_digest: str


@dataclass(frozen=True)
class PublishUploadPayload(BaseTxPayload):
    """The digest one agent uploaded, read back and re-hashed; "" when that failed.

    :param verified_digest: ``0x`` hex or "".
    """

    verified_digest: str


@dataclass(frozen=True)
class PublishTxPayload(BaseTxPayload):
    """The Safe transaction to settle, as ``transaction_settlement_abci`` expects it.

    :param tx_hash: ``payload_tools.hash_payload_to_hex`` of the Safe tx hash and its
        parameters; "" when it could not be built.
    """

    tx_hash: str
