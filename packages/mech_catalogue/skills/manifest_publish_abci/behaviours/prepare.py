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

"""PublishPrepareBehaviour: generate the manifest, read the registry, decide."""

from typing import Any, Generator, Optional, Tuple

from mech_catalogue_core.chain.registry import (
    IdSelection,
    RegistrySource,
    decode_digest_query,
    digest_query,
)
from mech_catalogue_core.model.vocabulary import (
    PublishStatus,
)
from mech_catalogue_core.publish.publish import (
    MECH_NOT_FOUND,
    UPDATE,
    PublishError,
    PublishTarget,
    authorise,
    can_change_call,
    check_address,
    contract_call,
    decide,
    exists_call,
    owner_call,
)

from packages.mech_catalogue.skills.manifest_publish_abci.behaviours.base import (
    PublishBaseBehaviour,
    as_call,
    decode_return,
)
from packages.mech_catalogue.skills.manifest_publish_abci.payloads import (
    PublishPreparePayload,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.prepare import (
    PublishPrepareRound,
)

Decision = Tuple[str, str, str]
#: (exists, owner address or isAbleChangeHash, latest digest)
TargetReads = Optional[Tuple[bool, Any, str]]


class PublishPrepareBehaviour(
    PublishBaseBehaviour
):  # pylint: disable=too-many-ancestors
    """Send (status, manifest digest, on-chain digest)."""

    matching_round = PublishPrepareRound

    def async_act(self) -> Generator:
        """Prepare, send the payload, wait for the round to end.

        :yield: while waiting for the ledger connection and Tendermint.
        """
        with self.context.benchmark_tool.measure(self.behaviour_id).local():
            status, digest, onchain = yield from self.assess()
            self.context.logger.info(
                f"publish: {status} (manifest {digest or '-'}, on chain {onchain or '-'})"
            )
            payload = PublishPreparePayload(
                self.context.agent_address, status, digest, onchain
            )
        with self.context.benchmark_tool.measure(self.behaviour_id).consensus():
            yield from self.send_a2a_transaction(payload)
            yield from self.wait_until_round_end()
        self.set_done()

    def assess(  # pylint: disable=too-many-return-statements
        self,
    ) -> Generator[None, None, Decision]:
        """Decide what to do this period.

        :yield: while waiting for the ledger connection.
        :return: (status, manifest digest, on-chain digest).
        """
        if not self.publish_settings.enabled:
            return PublishStatus.DISABLED.value, "", ""
        try:
            prepared = self.prepared_manifest()
        except PublishError as exc:
            self.context.logger.error(
                f"publish: refusing the generated manifest: {exc}"
            )
            return PublishStatus.INVALID_MANIFEST.value, "", ""
        target, safe = self.target, self.safe_address
        try:
            check_address(safe, "service Safe (safe_contract_address)")
        except PublishError as exc:
            self.context.logger.error(f"publish: {exc}")
            return PublishStatus.NOT_AUTHORISED.value, prepared.digest, ""
        try:
            reads = yield from self._read_target(target, safe)
        except PublishError as exc:  # a registry return that does not decode
            self.context.logger.error(f"publish: {exc}")
            reads = None
        if reads is None:
            return PublishStatus.READ_FAILED.value, prepared.digest, ""
        exists, allowed, onchain = reads
        try:
            authorise(target, safe, exists, allowed)
        except PublishError as exc:
            self.context.logger.error(f"publish: {exc}")
            status = (
                PublishStatus.MECH_NOT_FOUND
                if exc.code == MECH_NOT_FOUND
                else PublishStatus.NOT_AUTHORISED
            )
            return status.value, prepared.digest, onchain
        if decide(onchain, prepared.digest) == UPDATE:
            return PublishStatus.UPDATE.value, prepared.digest, onchain
        return PublishStatus.UP_TO_DATE.value, prepared.digest, onchain

    def _read_target(
        self, target: PublishTarget, safe: str
    ) -> Generator[None, None, TargetReads]:
        """Read existence, authorisation and the latest digest in one or two batches.

        :param target: the registry and id.
        :param safe: the Safe that will send the update.
        :yield: while waiting for the ledger connection.
        :return: (exists, owner-or-able, digest), or None when the chain could not be read.
        """
        holder = ""
        if self.needs_service_registry(target):
            holder_read = as_call(
                contract_call(target.registry, "serviceRegistry()"), "address"
            )
            results = yield from self.read_calls([holder_read])
            if results is None or not results[0][0]:
                return None
            holder = decode_return(holder_read, results[0][1])
        source = RegistrySource(
            target.kind,
            self.params.chain_id,
            target.registry.lower(),
            IdSelection("list", (target.mech_id,)),
        )
        query = digest_query(0, source, target.mech_id)
        who = (
            as_call(can_change_call(target, safe), "bool")
            if self.needs_service_registry(target)
            else as_call(owner_call(target), "address")
        )
        exists_read = as_call(exists_call(target, holder), "bool")
        results = yield from self.read_calls([exists_read, who, *query.calls])
        if results is None or not results[0][0]:
            return None
        exists = bool(decode_return(exists_read, results[0][1]))
        if not exists:
            return False, None, ""
        if not results[1][0]:
            return None
        allowed = decode_return(who, results[1][1])
        read = decode_digest_query(query, source, results[2:])
        if read.error:
            return None
        return True, allowed, read.digest
