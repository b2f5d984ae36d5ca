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

"""FetchManifestsBehaviour: every branch, the sliding window, the IPFS connection mode and the size cap."""

import time
from typing import List

from aea.protocols.base import Message
from mech_catalogue_core.catalogue.fetching import (
    KEPT_LAST_GOOD,
)
from mech_catalogue_core.chain.registry import (
    DigestRead,
)
from mech_catalogue_core.chain.snapshot import (
    RegistrySnapshot,
)
from mech_catalogue_core.ipfs.cid import (
    DAG_PB,
    RAW,
    digest_to_cid,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_HASH_MISMATCH,
    STATUS_INVALID,
    STATUS_NO_HASH,
    STATUS_OK,
    STATUS_UNAVAILABLE,
    Mech,
)

from packages.mech_catalogue.connections.capped_http_client.connection import (
    PUBLIC_ID as CAPPED_HTTP_CLIENT_ID,
)
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.fetch_manifests import (
    FetchManifestsBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.payloads import (
    CataloguePayload,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    FALLBACK,
    GATEWAY,
    FetchCase,
    ToolMetadataBehaviourCase,
    _CapturePayload,
    dag_pb_digest,
    manifest,
    raw_digest,
    ref,
)
from packages.valory.protocols.http import HttpMessage
from packages.valory.protocols.ipfs import IpfsMessage
from packages.valory.skills.abstract_round_abci.behaviour_utils import (
    IPFS_CONNECTION_ID,
)


class TestFetchManifestsBehaviour(FetchCase):
    """FetchManifestsBehaviour."""

    def test_fetches_verifies_parses_and_publishes(self) -> None:
        """dag-pb manifest: fetched once, verified, parsed; payload views; exposed after agreement."""
        data = manifest("summarise", "translate")
        digest = dag_pb_digest(data)
        capture = self.start([DigestRead(ref(1), digest), DigestRead(ref(2), "")])
        self.answer_gateway(digest_to_cid(digest, DAG_PB), 200, data)
        payload = capture.payloads[0]
        assert self.views_of(payload)["mech_tools"] == ["summarise", "translate"]
        # no marketplace configured: no facts, so nothing mech-interact could rank
        assert self.views_of(payload)["mechs_info"] == []
        self.agree(payload)
        exposed = self.exposed()
        assert (
            exposed is not None and exposed.catalogue_digest == payload.catalogue_digest
        )
        assert self.agreed_entry(ref(2)).status == STATUS_NO_HASH
        assert [t.name for t in exposed.catalogue.tools_of(ref(1))] == [
            "summarise",
            "translate",
        ]

    def test_cache_hit_makes_no_request(self) -> None:
        """A CID already verified is never fetched again: the payload is sent straight away."""
        data = manifest("summarise")
        digest = dag_pb_digest(data)
        self.skill.skill_context.state.manifest_cache.put(
            digest_to_cid(digest, DAG_PB), data
        )
        capture = self.start([DigestRead(ref(1), digest)])
        assert capture.payloads and self.views_of(capture.payloads[0])[
            "mech_tools"
        ] == ["summarise"]

    def test_raw_leaves_manifest_falls_back_to_the_raw_cid(self) -> None:
        """The dag-pb CID fails at the gateway (raw block); the raw CID, asked at once, verifies."""
        data = manifest("summarise")
        digest = raw_digest(data)
        capture = self.start([DigestRead(ref(1), digest)])
        self.answer_gateway(digest_to_cid(digest, DAG_PB), 500, b"invalid wireType")
        self.answer_gateway(digest_to_cid(digest, RAW), 200, data)  # no backoff first
        assert self.views_of(capture.payloads[0])["mech_tools"] == ["summarise"]

    def test_wrong_bytes_are_a_hash_mismatch(self) -> None:
        """A gateway serving other bytes: never trusted; the mech is quarantined as hash_mismatch."""
        digest = dag_pb_digest(manifest("summarise"))
        capture = self.start([DigestRead(ref(1), digest)])
        evil = manifest("steal_keys")
        self.answer_both_codecs_twice(digest, 200, evil)
        payload = capture.payloads[0]
        assert self.views_of(payload)["mech_tools"] == []
        self.agree(payload)
        assert self.agreed_entry(ref(1)).status == STATUS_HASH_MISMATCH

    def test_too_large_is_rejected_without_parsing(self) -> None:
        """Bytes over max_manifest_bytes are rejected with too_large."""
        digest = dag_pb_digest(b"x" * 5000)
        capture = self.start([DigestRead(ref(1), digest)])
        self.answer_gateway(digest_to_cid(digest, DAG_PB), 200, b"x" * 5000)
        self.agree(capture.payloads[0])
        mech = self.agreed_entry(ref(1))
        assert mech.status == STATUS_INVALID and mech.problems[0].code == "too_large"

    def test_broken_manifest_keeps_the_last_good_one(self) -> None:
        """Period 2 serves a broken manifest: the period-1 tools stay, marked stale, with the reason."""
        good = manifest("summarise")
        good_digest = dag_pb_digest(good)
        capture = self.start([DigestRead(ref(1), good_digest)])
        self.answer_gateway(digest_to_cid(good_digest, DAG_PB), 200, good)
        first = capture.payloads[0]
        self.agree(first)
        broken = b'{"tools": [1, 2'
        broken_digest = dag_pb_digest(broken)
        capture = self.start(
            [DigestRead(ref(1), broken_digest)], catalogue_digest=first.catalogue_digest
        )
        self.answer_gateway(digest_to_cid(broken_digest, DAG_PB), 200, broken)
        second = capture.payloads[0]
        assert self.views_of(second)["mech_tools"] == ["summarise"]
        self.agree(second)
        catalogue = self.agreed_catalogue()
        mech = self.agreed_entry(ref(1))
        assert mech.status == STATUS_OK and mech.digest == good_digest
        assert KEPT_LAST_GOOD in [p.code for p in mech.problems]
        assert catalogue.stale(21) == (mech,)

    def test_unreachable_ipfs_marks_unavailable(self) -> None:
        """No answer at all (gateway down): unavailable with fetch_failed after the retries."""
        digest = dag_pb_digest(manifest("summarise"))
        capture = self.start([DigestRead(ref(1), digest)])
        self.answer_both_codecs_twice(digest, 502, b"")
        self.agree(capture.payloads[0])
        mech = self.agreed_entry(ref(1))
        assert (
            mech.status == STATUS_UNAVAILABLE
            and mech.problems[0].code == "fetch_failed"
        )

    def test_disagreement_keeps_the_previous_publication(self) -> None:
        """The agents agreed on another digest: this agent does not publish its own catalogue."""
        data = manifest("summarise")
        digest = dag_pb_digest(data)
        self.skill.skill_context.state.manifest_cache.put(
            digest_to_cid(digest, DAG_PB), data
        )
        capture = self.start([DigestRead(ref(1), digest)])
        payload = capture.payloads[0]
        self.agree(CataloguePayload(payload.sender, "ee" * 32, "ff" * 32, 1))
        assert self.exposed() is None

    def test_no_snapshot_sends_an_empty_payload(self) -> None:
        """Without an agreed snapshot nothing is built: payload of Nones (NONE event)."""
        self.go_to(FetchManifestsBehaviour, {})
        capture = _CapturePayload(self.behaviour.current_behaviour)
        self.behaviour.act_wrapper()
        assert capture.payloads[0].values == (None, None, None)


class TestFetchConcurrencyAndIpfsConnection(ToolMetadataBehaviourCase):
    """Several requests in flight; the valory/ipfs connection as the source."""

    def start(self, reads: List[DigestRead]) -> _CapturePayload:
        """Enter FetchManifestsBehaviour with an agreed snapshot and start it.

        :param reads: the snapshot's reads.
        :return: the payload capture.
        """
        snapshot = RegistrySnapshot.build(20, reads)
        self.go_to(
            FetchManifestsBehaviour,
            {
                "registry_snapshot_block": snapshot.block_number,
                "registry_snapshot_digest": self.keep_snapshot(snapshot),
            },
        )
        capture = _CapturePayload(self.behaviour.current_behaviour)
        self.behaviour.act_wrapper()
        return capture

    def test_requests_are_in_flight_together(self) -> None:
        """With fetch_concurrency=2 both gateway GETs leave before any answer arrives."""
        self.skill.skill_context.params.__dict__["fetch_concurrency"] = 2
        first, second = manifest("one"), manifest("two")
        digests = {dag_pb_digest(first): first, dag_pb_digest(second): second}
        capture = self.start([DigestRead(ref(i + 1), d) for i, d in enumerate(digests)])
        self.assert_quantity_in_outbox(2)
        requests = [self.outbox_message(HttpMessage) for _ in range(2)]
        by_url = {
            f"{GATEWAY}/ipfs/{digest_to_cid(d, DAG_PB)}": data
            for d, data in digests.items()
        }
        for request in requests:
            self.answer(request, by_url[request.url])
        self.behaviour.act_wrapper()
        assert self.views_of(capture.payloads[0])["mech_tools"] == ["one", "two"]

    def answer(
        self, request: HttpMessage, body: bytes, status: int = 200, headers: str = ""
    ) -> None:
        """Deliver a gateway response to a request from the outbox.

        :param request: the request.
        :param body: the response body.
        :param status: the HTTP status.
        :param headers: ``Name: value`` lines.
        """
        self.deliver_gateway_response(request, status, headers, body)

    def test_a_slot_refills_as_soon_as_one_answer_arrives(self) -> None:
        """Window of 2 over 3 CIDs: the third GET leaves once the first is answered, the second still pending."""
        self.skill.skill_context.params.__dict__["fetch_concurrency"] = 2
        datas = [manifest(name) for name in ("one", "two", "three")]
        by_url = {
            f"{GATEWAY}/ipfs/{digest_to_cid(dag_pb_digest(d), DAG_PB)}": d
            for d in datas
        }
        capture = self.start(
            [DigestRead(ref(i + 1), dag_pb_digest(d)) for i, d in enumerate(datas)]
        )
        self.assert_quantity_in_outbox(2)
        first, second = [self.outbox_message(HttpMessage) for _ in range(2)]
        self.answer(first, by_url[first.url])
        self.behaviour.act_wrapper()
        self.assert_quantity_in_outbox(1)
        third = self.outbox_message(HttpMessage)
        assert third.url not in (first.url, second.url)
        self.answer(third, by_url[third.url])
        self.answer(second, by_url[second.url])
        self.behaviour.act_wrapper()
        assert self.views_of(capture.payloads[0])["mech_tools"] == [
            "one",
            "three",
            "two",
        ]

    def test_a_429_sends_the_cid_to_the_fallback_gateway(self) -> None:
        """429 + Retry-After from the preferred gateway: the same CID goes to the fallback at once; the window halves."""
        self.skill.skill_context.params.__dict__.update(
            fetch_concurrency=2, ipfs_fallback_gateway_urls=(FALLBACK,)
        )
        data = manifest("one")
        cid = digest_to_cid(dag_pb_digest(data), DAG_PB)
        capture = self.start([DigestRead(ref(1), dag_pb_digest(data))])
        first = self.outbox_message(HttpMessage)
        assert first.url == f"{GATEWAY}/ipfs/{cid}"
        self.answer(first, b"slow down", 429, "Retry-After: 30\n")
        self.behaviour.act_wrapper()
        second = self.outbox_message(HttpMessage)
        assert second.url == f"{FALLBACK}/ipfs/{cid}"
        pool = self.skill.skill_context.state.gateways  # halved from 2, held 30 s:
        assert pool.window() == 1
        assert pool.gateways[0].held_until - time.monotonic() > 20
        self.answer(second, data)
        self.behaviour.act_wrapper()
        assert self.views_of(capture.payloads[0])["mech_tools"] == ["one"]

    def test_a_failing_gateway_hands_over_to_the_fallback(self) -> None:
        """502 from the preferred gateway: the fallback is asked for the CID in the same window."""
        self.skill.skill_context.params.__dict__.update(
            ipfs_fallback_gateway_urls=(FALLBACK,)
        )
        data = manifest("two")
        cid = digest_to_cid(dag_pb_digest(data), DAG_PB)
        capture = self.start([DigestRead(ref(1), dag_pb_digest(data))])
        first = self.outbox_message(HttpMessage)
        self.answer(first, b"", 502)
        self.behaviour.act_wrapper()
        second = self.outbox_message(HttpMessage)
        assert first.url == f"{GATEWAY}/ipfs/{cid}"
        assert second.url == f"{FALLBACK}/ipfs/{cid}"
        self.answer(second, data)
        self.behaviour.act_wrapper()
        assert self.views_of(capture.payloads[0])["mech_tools"] == ["two"]

    def test_fetches_through_the_ipfs_connection(self) -> None:
        """ipfs_fetch_mode=ipfs_connection: a GET_FILES request; the single file's bytes are verified."""
        self.skill.skill_context.params.__dict__["ipfs_fetch_mode"] = "ipfs_connection"
        data = manifest("summarise")
        digest = dag_pb_digest(data)
        capture = self.start([DigestRead(ref(1), digest)])
        self.assert_quantity_in_outbox(1)
        request = self.outbox_message(IpfsMessage)
        assert request.performative == IpfsMessage.Performative.GET_FILES
        assert request.ipfs_hash == digest_to_cid(digest, DAG_PB)
        response = self.build_incoming_message(
            message_type=IpfsMessage,
            dialogue_reference=(request.dialogue_reference[0], "stub"),
            performative=IpfsMessage.Performative.FILES,
            target=request.message_id,
            message_id=-1,
            to=str(self.skill.skill_context.skill_id),
            sender=str(IPFS_CONNECTION_ID),
            files={digest_to_cid(digest, DAG_PB): data.decode()},
        )
        self.skill.skill_context.handlers.ipfs.handle(response)
        self.behaviour.act_wrapper()
        assert self.views_of(capture.payloads[0])["mech_tools"] == ["summarise"]


class TestFetchSizeCap(ToolMetadataBehaviourCase):
    """max_manifest_bytes applies while reading: ranged gateway GETs, capped replies."""

    CAP = 4096

    def start(self, reads: List[DigestRead]) -> _CapturePayload:
        """Enter FetchManifestsBehaviour with an agreed snapshot and start it.

        :param reads: the snapshot's reads.
        :return: the payload capture.
        """
        snapshot = RegistrySnapshot.build(20, reads)
        self.go_to(
            FetchManifestsBehaviour,
            {
                "registry_snapshot_block": snapshot.block_number,
                "registry_snapshot_digest": self.keep_snapshot(snapshot),
            },
        )
        capture = _CapturePayload(self.behaviour.current_behaviour)
        self.behaviour.act_wrapper()
        return capture

    def reply(self, request: Message, status: int, headers: str, body: bytes) -> None:
        """Deliver a gateway response with any status and headers.

        :param request: the request from the outbox.
        :param status: the HTTP status.
        :param headers: the header lines.
        :param body: the body.
        """
        self.deliver_gateway_response(request, status, headers, body)

    def candidate_mech(self) -> Mech:
        """Get mech 1 of this agent's candidate catalogue.

        :return: the entry (the test fails when there is none).
        """
        candidate = self.skill.skill_context.state.candidate
        assert candidate is not None
        mech = candidate[0].mech(ref(1))
        assert mech is not None
        return mech

    def test_gateway_get_asks_for_one_byte_past_the_cap(self) -> None:
        """The GET carries Range: bytes=0-<max_manifest_bytes>; a 206 within it is the manifest."""
        self.skill.skill_context.params.__dict__["max_manifest_bytes"] = self.CAP
        data = manifest("summarise")
        capture = self.start([DigestRead(ref(1), dag_pb_digest(data))])
        request = self.outbox_message(HttpMessage)
        assert "Range: bytes=0-4096" in request.headers.splitlines()
        total = len(data)
        self.reply(request, 206, f"Content-Range: bytes 0-{total - 1}/{total}\n", data)
        self.behaviour.act_wrapper()
        assert self.views_of(capture.payloads[0])["mech_tools"] == ["summarise"]

    def test_over_the_cap_by_range_is_too_large(self) -> None:
        """A 206 of cap + 1 bytes from a far larger file: too_large, naming the CID and the cap."""
        self.skill.skill_context.params.__dict__["max_manifest_bytes"] = self.CAP
        data = b"{" + b" " * 100_000 + b"}"
        digest = dag_pb_digest(data)
        capture = self.start([DigestRead(ref(1), digest)])
        request = self.outbox_message(HttpMessage)
        self.reply(
            request,
            206,
            f"Content-Range: bytes 0-{self.CAP}/{len(data)}\n",
            data[: self.CAP + 1],
        )
        self.behaviour.act_wrapper()
        assert self.views_of(capture.payloads[0])["mech_tools"] == []
        mech = self.candidate_mech()
        assert mech.status == STATUS_INVALID and mech.problems[0].code == "too_large"
        assert digest_to_cid(digest, DAG_PB) in mech.problems[0].message
        assert "max_manifest_bytes=4096" in mech.problems[0].message
        assert "larger than" in mech.problems[0].message

    def test_gateway_ignoring_range_gets_the_same_verdict(self) -> None:
        """A 200 with the whole file (Range ignored): cut to cap + 1, the same too_large sentence."""
        self.skill.skill_context.params.__dict__["max_manifest_bytes"] = self.CAP
        data = b"{" + b" " * 100_000 + b"}"
        capture = self.start([DigestRead(ref(1), dag_pb_digest(data))])
        request = self.outbox_message(HttpMessage)
        # the connection that cuts a body at the Range even when the gateway ignores it
        assert request.to == str(CAPPED_HTTP_CLIENT_ID)
        self.reply(request, 200, "", data)
        self.behaviour.act_wrapper()
        assert self.views_of(capture.payloads[0])["mech_tools"] == []
        problem = self.candidate_mech().problems[0]
        assert (
            problem.code == "too_large" and "max_manifest_bytes=4096" in problem.message
        )

    def test_ipfs_connection_reply_is_cut_to_the_limit(self) -> None:
        """GET_FILES answered with a file over the cap: kept to cap + 1 bytes, too_large."""
        self.skill.skill_context.params.__dict__["ipfs_fetch_mode"] = "ipfs_connection"
        self.skill.skill_context.params.__dict__["max_manifest_bytes"] = self.CAP
        data = b"[" + "é".encode() * 50_000 + b"]"
        digest = dag_pb_digest(data)
        capture = self.start([DigestRead(ref(1), digest)])
        request = self.outbox_message(IpfsMessage)
        self.skill.skill_context.handlers.ipfs.handle(
            self.build_incoming_message(
                message_type=IpfsMessage,
                dialogue_reference=(request.dialogue_reference[0], "stub"),
                performative=IpfsMessage.Performative.FILES,
                target=request.message_id,
                message_id=-1,
                to=str(self.skill.skill_context.skill_id),
                sender=str(IPFS_CONNECTION_ID),
                files={digest_to_cid(digest, DAG_PB): data.decode()},
            )
        )
        self.behaviour.act_wrapper()
        assert self.views_of(capture.payloads[0])["mech_tools"] == []
        problem = self.candidate_mech().problems[0]
        assert (
            problem.code == "too_large" and "max_manifest_bytes=4096" in problem.message
        )
