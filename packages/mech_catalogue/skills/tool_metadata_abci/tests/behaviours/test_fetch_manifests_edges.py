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

"""FetchManifestsBehaviour: what the fourth mutation-testing session showed no test pinned.

Driven through open-autonomy's ``FSMBehaviourBaseCase`` with the skill's real context (the
ledger connection, the gateway and Tendermint are played by the test, as in
``test_fetch_manifests.py``; the chain's answers are real Multicall2 return data encoded
with eth_abi). Each test asserts what the behaviour promises: an Olas agent's components
are read on chain and their metadata fetched as files, the fetch policy is the parameters',
a failed fetch is logged and kept as a diagnostic in a stated form, and an agent that
cannot reproduce the agreed snapshot says why.
"""

import email.utils
import json
import logging
import time
from typing import Any, Callable, Dict, Generator, List, Tuple, cast
from unittest import mock

import pytest
from eth_abi import encode
from mech_catalogue_core.catalogue.fetching import (
    FetchResult,
)
from mech_catalogue_core.chain.registry import (
    DigestRead,
)
from mech_catalogue_core.chain.snapshot import (
    RegistrySnapshot,
)
from mech_catalogue_core.derive.from_chain import (
    DerivationCache,
)
from mech_catalogue_core.ipfs.cid import (
    DAG_PB,
    RAW,
    digest_to_cid,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
    Mech,
    MechRef,
)

from packages.mech_catalogue.skills.tool_metadata_abci.behaviours import fetch_manifests
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.fetch_manifests import (
    FetchManifestsBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    CHAIN_ID,
    FALLBACK,
    GATEWAY,
    LEGACY,
    OLAS,
    FetchCase,
    _CapturePayload,
    dag_pb_digest,
    manifest,
    ref,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviours.test_framework_calls import (
    run_to_end,
)
from packages.valory.protocols.contract_api import ContractApiMessage
from packages.valory.protocols.http import HttpMessage

COMPONENT_REGISTRY = "0x00000000000000000000000000000000000000ee"
AGENT = MechRef(CHAIN_ID, "olas_agent_registry", OLAS, 7)
BLOCK = "bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy"


class _EdgeCase(FetchCase):
    """FetchCase with one fresh gateway and derivations kept in memory only."""

    def setup_method(self, **kwargs: Any) -> None:
        """Start every test with one fresh gateway, no fallback, no derivation cache."""
        super().setup_method(**kwargs)
        self.skill.skill_context.params.__dict__["ipfs_fallback_gateway_urls"] = ()
        self.skill.skill_context.state.gateways = None
        self.skill.skill_context.state.derivations = DerivationCache()

    def serve_until_payload(
        self, capture: Any, reply: Callable[[str], Tuple[int, str, bytes]]
    ) -> List[str]:
        """Answer every gateway GET with ``reply(url)`` until the round's payload is sent.

        :param capture: the payload capture of the running behaviour.
        :param reply: URL -> ``(status, headers, body)``.
        :return: the URLs asked for, in order.
        """
        asked: List[str] = []

        def answered() -> bool:
            while True:
                request = self.get_message_from_outbox()
                if request is None:
                    return bool(capture.payloads)
                assert isinstance(request, HttpMessage), request
                asked.append(request.url)
                self.deliver_gateway_response(request, *reply(request.url))

        self.act_until(answered)
        return asked


class TestOlasAgentComponents(_EdgeCase):
    """An Olas agent's untyped tools: its components are read on chain, then fetched."""

    def serve_manifests(self, served: Dict[int, bytes]) -> Any:
        """Start with Olas agents serving manifests; answer their GETs until a chain read.

        :param served: agent id -> its manifest bytes.
        :return: the payload capture.
        """
        by_url = {
            f"{GATEWAY}/ipfs/{digest_to_cid(dag_pb_digest(d), DAG_PB)}": d
            for d in served.values()
        }
        capture = self.start(
            [
                DigestRead(
                    MechRef(CHAIN_ID, AGENT.registry_kind, OLAS, i), dag_pb_digest(d)
                )
                for i, d in served.items()
            ]
        )

        for _ in served:  # fetch_concurrency=1: one manifest GET at a time
            self.act_until(lambda: self.get_quantity_in_outbox() == 1)
            request = self.outbox_message(HttpMessage)
            self.deliver_gateway_response(request, 200, "", by_url[request.url])
        self.act_until(lambda: self.get_quantity_in_outbox() == 1)
        return capture

    def answer_chain_read(self, results: List[Tuple[bool, bytes]]) -> Any:
        """Answer the pending Multicall2 ``eth_call`` (block 20) with ``results``.

        :param results: ``(success, return data)`` per call.
        :return: the block the request asked to read at.
        """
        taken: List[Any] = []
        take = self.get_message_from_outbox

        def recording() -> Any:
            taken.append(take())
            return taken[-1]

        with mock.patch.object(self, "get_message_from_outbox", recording):
            self.answer_multicall(20, results)
        assert isinstance(taken[0], ContractApiMessage), taken
        return taken[0].kwargs.body.get("block_identifier")

    def test_an_agent_registry_that_fails_is_a_warning(self) -> None:
        """``componentRegistry()`` fails: a warning names the registry; the mechs are served as is.

        Two agents, ``multicall_batch_size=2``: the first Multicall2 ``eth_call`` (at the
        agreed block 20, not a gateway GET) carries ``componentRegistry()`` and the first
        agent's dependencies only.
        """
        self.skill.skill_context.params.__dict__["multicall_batch_size"] = 2
        logger = self.skill.skill_context.logger
        with mock.patch.object(logger, "warning") as warning:
            capture = self.serve_manifests(
                {7: manifest("agent-tool"), 8: manifest("other-tool")}
            )
            assert self.answer_chain_read([(False, b""), (False, b"")]) == 20
            self.act_until(lambda: bool(capture.payloads))
        texts = [str(c.args[0]) for c in warning.call_args_list]
        assert any(
            t.startswith(f"component code of {OLAS} not read: componentRegistry()")
            for t in texts
        ), texts
        mech = self.skill.skill_context.state.candidate[0].mech(AGENT)
        assert mech.status == "ok" and [t.name for t in mech.tools] == ["agent-tool"]

    def test_component_metadata_is_fetched_as_a_file(self) -> None:
        """The component's metadata is a plain GET of its CID; a 404 is code_fetch_failed.

        Chain: the ComponentRegistry and the agent's one dependency (component 5), then
        component 5's metadata digest; IPFS: one GET of that digest's CID (a file, not a
        raw block).
        """
        metadata = b'{"name": "component five"}'
        metadata_digest = dag_pb_digest(metadata)
        capture = self.serve_manifests({7: manifest("agent-tool")})
        first = self.answer_chain_read(
            [
                (True, encode(["address"], [COMPONENT_REGISTRY])),
                (True, encode(["uint256", "uint32[]"], [1, [5]])),
            ],
        )
        self.act_until(lambda: self.get_quantity_in_outbox() == 1)
        digest_bytes = bytes.fromhex(metadata_digest[2:])
        second = self.answer_chain_read(
            [
                (True, encode(["uint256", "bytes32[]"], [1, [digest_bytes]])),
                (True, encode(["bytes32"], [digest_bytes])),
            ],
        )
        assert first == second == 20  # the agreed snapshot's block
        self.act_until(lambda: self.get_quantity_in_outbox() == 1)
        request = self.outbox_message(HttpMessage)
        assert request.url == f"{GATEWAY}/ipfs/{digest_to_cid(metadata_digest, DAG_PB)}"
        accept = request.headers.splitlines()[0]
        assert accept.lower() == "accept: application/octet-stream"  # both case-blind
        with mock.patch.object(self.skill.skill_context.logger, "info") as info:
            self.deliver_gateway_response(request, 404, "", b"")
            self.act_until(lambda: bool(capture.payloads))
        mech = self.skill.skill_context.state.candidate[0].mech(AGENT)
        assert mech.status == "ok" and [t.name for t in mech.tools] == ["agent-tool"]
        assert "code_fetch_failed" in [str(p.code) for p in mech.problems]
        assert (
            "code-derived arguments: 1 agents, 0 packages, 1 IPFS requests "
            "(component metadata, code blocks) this period"
        ) in [str(c.args[0]) for c in info.call_args_list]

    def test_served_component_metadata_leads_to_its_code(self) -> None:
        """A 200 for the metadata is read as the JSON it is: the next GET is its code's block.

        (Fetched bodies are held packed; the code reader once got the packed bytes, found
        no code_uri in them, and every Olas agent's code-derived arguments were lost.)
        """
        code_cid = digest_to_cid(dag_pb_digest(b"code"), DAG_PB)
        metadata = json.dumps(
            {"name": "component five", "code_uri": f"ipfs://{code_cid}"}
        ).encode()
        metadata_digest = dag_pb_digest(metadata)
        self.serve_manifests({7: manifest("agent-tool")})
        self.answer_chain_read(
            [
                (True, encode(["address"], [COMPONENT_REGISTRY])),
                (True, encode(["uint256", "uint32[]"], [1, [5]])),
            ],
        )
        self.act_until(lambda: self.get_quantity_in_outbox() == 1)
        digest_bytes = bytes.fromhex(metadata_digest[2:])
        self.answer_chain_read(
            [
                (True, encode(["uint256", "bytes32[]"], [1, [digest_bytes]])),
                (True, encode(["bytes32"], [digest_bytes])),
            ],
        )
        self.act_until(lambda: self.get_quantity_in_outbox() == 1)
        self.deliver_gateway_response(
            self.outbox_message(HttpMessage), 200, "", metadata
        )
        self.act_until(lambda: self.get_quantity_in_outbox() >= 1)
        block = self.outbox_message(HttpMessage)
        assert block.url == f"{GATEWAY}/ipfs/{code_cid}?format=raw"


class TestBlockReplies(_EdgeCase):
    """Raw block replies read with their headers (``fetch_blocks``)."""

    def block_reply(self, headers: str, body: bytes) -> Any:
        """Ask one block and answer it 206 with ``headers`` and ``body``.

        :param headers: the response's header lines.
        :param body: the response body.
        :return: what ``fetch_blocks`` returns.
        """
        self.go_to(FetchManifestsBehaviour, {})
        behaviour = cast(FetchManifestsBehaviour, self.current())
        asking = behaviour.fetch_blocks([BLOCK])
        next(asking)  # the GET leaves, the behaviour waits
        request = self.outbox_message(HttpMessage)
        self.deliver_gateway_response(request, 206, headers, body)
        return run_to_end(asking, 10)

    def test_a_short_partial_block_is_missing(self) -> None:
        """A 206 whose Content-Range promises 100 bytes but carries 10 is no block."""
        assert self.block_reply("Content-Range: bytes 0-99/100\n", b"0123456789") == {
            BLOCK: None
        }

    def test_a_whole_partial_block_is_kept(self) -> None:
        """A 206 carrying all the bytes its Content-Range says the block has is the block."""
        assert self.block_reply("Content-Range: bytes 0-9/10\n", b"0123456789") == {
            BLOCK: b"0123456789"
        }


class TestRateLimitedWindow(_EdgeCase):
    """A 429 with nothing else in flight: the window itself sleeps and asks again."""

    def test_a_rate_limited_cid_is_asked_again_after_a_sleep(self) -> None:
        """``fetch_retries=0``: after a 429 with ``Retry-After: 1`` the same window asks again.

        The behaviour sleeps (yields) for what is left of the Retry-After, under a second,
        instead of spinning through it, and the second answer is the manifest served.
        """
        self.skill.skill_context.params.__dict__["fetch_retries"] = 0
        slept: List[float] = []
        real_sleep = FetchManifestsBehaviour.sleep

        def sleep(behaviour: Any, seconds: float) -> Any:
            slept.append(seconds)
            return real_sleep(behaviour, seconds)

        data = manifest("patient")
        with mock.patch.object(FetchManifestsBehaviour, "sleep", sleep):
            capture = self.start([DigestRead(ref(1), dag_pb_digest(data))])
            first = self.outbox_message(HttpMessage)
            self.deliver_gateway_response(first, 429, "Retry-After: 1\n", b"")
            self.act_until(lambda: self.get_quantity_in_outbox() == 1)
            second = self.outbox_message(HttpMessage)
            assert second.url == first.url
            self.deliver_gateway_response(second, 200, "", data)
            self.act_until(lambda: bool(capture.payloads))
        assert self.views_of(capture.payloads[0])["mech_tools"] == ["patient"]
        assert len(slept) == 1 and 0.0 < slept[0] <= 1.0, slept

    def test_a_retry_after_date_is_honoured(self) -> None:
        """A 429 whose ``Retry-After`` is an HTTP date (RFC 9110) is waited out, then asked again."""
        self.skill.skill_context.params.__dict__["fetch_retries"] = 0
        data = manifest("dated")
        capture = self.start([DigestRead(ref(1), dag_pb_digest(data))])
        first = self.outbox_message(HttpMessage)
        when = email.utils.formatdate(time.time() + 1, usegmt=True)
        self.deliver_gateway_response(first, 429, f"Retry-After: {when}\n", b"")
        self.act_until(lambda: self.get_quantity_in_outbox() == 1)
        second = self.outbox_message(HttpMessage)
        assert second.url == first.url
        self.deliver_gateway_response(second, 200, "", data)
        self.act_until(lambda: bool(capture.payloads))
        assert self.views_of(capture.payloads[0])["mech_tools"] == ["dated"]


class TestFailureReport(_EdgeCase):
    """``report_failures``: one warning per failed digest (up to 20), then a count."""

    def entered(self) -> FetchManifestsBehaviour:
        """Enter the behaviour without acting.

        :return: it.
        """
        self.go_to(FetchManifestsBehaviour, {})
        return cast(FetchManifestsBehaviour, self.current())

    def test_failures_are_logged_and_kept_by_digest(self) -> None:
        """22 failures and one success: 20 warnings, one '2 more', 22 diagnostics.

        A failure with a problem is named by its code, one without by its status; a
        success is neither logged nor kept.
        """
        digests = [f"0x{i:064x}" for i in range(1, 24)]
        fetched = {
            d: FetchResult.unavailable(d, [], f"HTTP {i}")
            for i, d in enumerate(digests[:21])
        }
        fetched[digests[21]] = FetchResult(
            digests[21], status="unavailable", detail="gone"
        )
        fetched[digests[22]] = FetchResult.ok(digests[22], "cid", b"{}")
        behaviour = self.entered()
        with mock.patch.object(self.skill.skill_context.logger, "warning") as warning:
            behaviour.report_failures(fetched)
        diagnostics = self.skill.skill_context.state.fetch_diagnostics
        assert sorted(diagnostics) == digests[:22]
        assert diagnostics[digests[0]] == "fetch_failed: HTTP 0"
        assert diagnostics[digests[21]] == "unavailable: gone"
        texts = [str(c.args[0]) for c in warning.call_args_list]
        assert texts[:20] == [
            f"manifest for digest {d}: {diagnostics[d]}" for d in digests[:20]
        ]
        assert texts[20:] == [
            "2 more manifests failed this period (SharedState.fetch_diagnostics has them all)"
        ]

    def test_twenty_failures_need_no_count(self) -> None:
        """Exactly 20 failures: 20 warnings and no 'more' line."""
        digests = [f"0x{i:064x}" for i in range(1, 21)]
        behaviour = self.entered()
        with mock.patch.object(self.skill.skill_context.logger, "warning") as warning:
            behaviour.report_failures(
                {d: FetchResult.unavailable(d, [], "x") for d in digests}
            )
        assert warning.call_count == 20


class TestGatewayPool(_EdgeCase):
    """``gateway_pool``: kept between periods, made anew when its parameters change."""

    def test_pool_follows_its_parameters(self) -> None:
        """Same parameters: the same pool; other concurrency or gateways: a new one.

        Its period budget is half of ``fetch_round_timeout_seconds``.
        """
        params = self.skill.skill_context.params.__dict__
        params.update(fetch_round_timeout_seconds=30.0, fetch_concurrency=3)
        self.go_to(FetchManifestsBehaviour, {})
        behaviour = cast(FetchManifestsBehaviour, self.current())
        pool = behaviour.gateway_pool()
        assert pool.policy.period_budget_seconds == 15.0
        assert pool.policy.max_concurrency == 3
        assert list(pool.urls) == [GATEWAY]
        assert behaviour.gateway_pool() is pool
        params["fetch_concurrency"] = 4
        wider = behaviour.gateway_pool()
        assert wider is not pool and wider.policy.max_concurrency == 4
        assert behaviour.gateway_pool() is wider
        params["ipfs_fallback_gateway_urls"] = (FALLBACK,)
        both = behaviour.gateway_pool()
        assert both is not wider and list(both.urls) == [GATEWAY, FALLBACK]


class TestAgreedSnapshotLogs(_EdgeCase):
    """``agreed_snapshot``: what an agent that cannot build from the agreed snapshot says."""

    def test_no_agreed_digest_is_an_error(self) -> None:
        """No agreed snapshot digest: no snapshot, and the error says so."""
        self.go_to(FetchManifestsBehaviour, {"registry_snapshot_digest": ""})
        behaviour = cast(FetchManifestsBehaviour, self.current())
        with mock.patch.object(self.skill.skill_context.logger, "error") as error:
            assert run_to_end(behaviour.agreed_snapshot(), 5) is None
        error.assert_called_once_with(
            "no agreed registry snapshot digest to build from"
        )

    def test_another_snapshot_at_the_agreed_block_is_named(self) -> None:
        """The chain at block 20 gives another snapshot: both digests and the block are named.

        The agent first says it reads the registries again (info), then why it sends no
        catalogue (error); the snapshot it read is not kept.
        """
        self.use_registries(
            [{"kind": "legacy_mech_registry", "address": LEGACY, "ids": [1]}]
        )
        agreed = RegistrySnapshot.build(20, [DigestRead(ref(1), "0x" + "11" * 32)])
        read = RegistrySnapshot.build(20, [DigestRead(ref(1), "0x" + "22" * 32)])
        self.go_to(
            FetchManifestsBehaviour,
            {
                "registry_snapshot_block": 20,
                "registry_snapshot_digest": agreed.digest(),
            },
        )
        logger = self.skill.skill_context.logger
        with (
            mock.patch.object(logger, "info") as info,
            mock.patch.object(logger, "error") as error,
        ):
            capture = _CapturePayload(self.behaviour.current_behaviour)
            self.behaviour.act_wrapper()
            self.answer_multicall(
                20, [(True, encode(["uint256", "bytes32[]"], [1, [b"\x22" * 32]]))]
            )
            self.act_until(lambda: bool(capture.payloads))
        assert capture.payloads[0].values == (None, None, None)
        assert capture.payloads[0].sender == self.skill.skill_context.agent_address
        infos = [str(c.args[0]) for c in info.call_args_list]
        assert (
            f"this agent does not hold the agreed snapshot {agreed.digest()}; "
            "reading the registries at block 20"
        ) in infos
        error.assert_called_once_with(
            f"the registries read at block 20 give snapshot {read.digest()}, not the "
            f"agreed {agreed.digest()}; this agent sends no catalogue this period "
            "(check its RPC is synced and serves that block)"
        )
        assert read.digest() not in self.skill.skill_context.state.snapshots

    def test_a_snapshot_read_again_is_kept(self) -> None:
        """The chain at block 20 gives the agreed snapshot: it is kept under its digest."""
        self.use_registries(
            [{"kind": "legacy_mech_registry", "address": LEGACY, "ids": [1]}]
        )
        agreed = RegistrySnapshot.build(20, [DigestRead(ref(1), "0x" + "11" * 32)])
        self.go_to(
            FetchManifestsBehaviour,
            {
                "registry_snapshot_block": 20,
                "registry_snapshot_digest": agreed.digest(),
            },
        )
        self.skill.skill_context.params.__dict__["fetch_retries"] = 0
        capture = _CapturePayload(self.behaviour.current_behaviour)
        self.behaviour.act_wrapper()
        self.answer_multicall(
            20, [(True, encode(["uint256", "bytes32[]"], [1, [b"\x11" * 32]]))]
        )

        # the manifest is not served: 404 to every GET
        self.serve_until_payload(capture, lambda _: (404, "", b""))
        kept = self.kept_snapshot(agreed.digest())
        assert kept.digest() == agreed.digest() and kept.reads == agreed.reads


class TestFetchPolicyFromParams(_EdgeCase):
    """``fetch_all`` fetches with the retries and backoff its parameters set."""

    def test_retries_and_backoff_are_the_parameters(self) -> None:
        """``fetch_retries=2``, backoff 0.02 s x3 capped at 0.05 s, a gateway that 404s.

        The dag-pb CID then the raw CID are asked in 1 + 2 rounds, the waits before the
        second and third rounds are 0.02 s then 0.05 s (0.06 capped), none between the
        two CIDs of a round, and the mech is unavailable.
        """
        self.skill.skill_context.params.__dict__.update(
            fetch_retries=2,
            fetch_backoff_initial_seconds=0.02,
            fetch_backoff_factor=3.0,
            fetch_backoff_max_seconds=0.05,
        )
        slept: List[float] = []
        real_sleep = FetchManifestsBehaviour.sleep

        def sleep(behaviour: Any, seconds: float) -> Any:
            slept.append(seconds)
            return real_sleep(behaviour, seconds)

        digest = dag_pb_digest(manifest("absent"))
        with mock.patch.object(FetchManifestsBehaviour, "sleep", sleep):
            capture = self.start([DigestRead(ref(1), digest)])
            asked = self.serve_until_payload(capture, lambda _: (404, "", b""))
        dag_pb = f"{GATEWAY}/ipfs/{digest_to_cid(digest, DAG_PB)}"
        raw = f"{GATEWAY}/ipfs/{digest_to_cid(digest, RAW)}"
        assert asked == [dag_pb, raw] * 3
        assert slept == [0.02, 0.05]
        mech = self.skill.skill_context.state.candidate[0].mech(ref(1))
        assert mech.status == "unavailable"


class TestUnansweredManifest(_EdgeCase):
    """A manifest GET nobody answers: waited for no longer than its timeout, then named."""

    def test_an_unanswered_get_expires_at_its_timeout(self) -> None:
        """``fetch_timeout_seconds=0.1``, no answer, no retry.

        Every wait for an answer is bounded by what is left of the 0.1 s (never longer),
        and the diagnostic says which timeout passed.
        """
        self.skill.skill_context.params.__dict__.update(
            fetch_timeout_seconds=0.1, fetch_retries=0
        )
        waits: List[float] = []
        real_wait = FetchManifestsBehaviour.wait_until

        def wait_until(behaviour: Any, condition: Any, timeout: Any = None) -> Any:
            waits.append(timeout)
            return real_wait(behaviour, condition, timeout)

        digest = dag_pb_digest(manifest("silent"))
        with mock.patch.object(FetchManifestsBehaviour, "wait_until", wait_until):
            capture = self.start([DigestRead(ref(1), digest)])
            self.act_until(
                lambda: self.get_message_from_outbox() is None
                and bool(capture.payloads)
            )
        assert waits and all(0.0 <= w <= 0.1 for w in waits), waits
        detail = self.skill.skill_context.state.fetch_diagnostics[digest]
        assert "no answer within fetch_timeout_seconds=0.1" in detail


class TestReplyReading(_EdgeCase):
    """``_reply_bytes``: a reply that carries no manifest is a failure that says why."""

    def test_a_short_partial_manifest_is_a_failure(self) -> None:
        """A 206 whose Content-Range promises more than it carries is not taken as bytes.

        ``max_manifest_bytes=4096``: the gateway says the file has 10,000 bytes but sends
        10; the diagnostic says how many of the 4,097 asked came (not a hash mismatch).
        """
        self.skill.skill_context.params.__dict__["fetch_retries"] = 0
        digest = dag_pb_digest(manifest("cut"))
        capture = self.start([DigestRead(ref(1), digest)])
        self.serve_until_payload(
            capture,
            lambda _: (206, "Content-Range: bytes 0-4096/10000\n", b"0123456789"),
        )
        detail = self.skill.skill_context.state.fetch_diagnostics[digest]
        assert "gateway sent 10 of the 4097 bytes asked for" in detail
        mech = self.skill.skill_context.state.candidate[0].mech(ref(1))
        assert mech.status == "unavailable"

    @pytest.mark.parametrize("files", [{"a.json": "{}", "b.json": "{}"}, {}])
    def test_files_other_than_one_are_a_failure_not_a_crash(
        self, files: Dict[str, str]
    ) -> None:
        """ipfs_connection mode, FILES with two files (a directory's CID) or none: a failure.

        The diagnostic says how many files came and what to register. (It read the
        message's unset ``reason``, which the protocol refuses with an exception: anyone
        registering a directory's digest stopped the period in this mode.)

        :param files: the FILES reply's files.
        """
        self.skill.skill_context.params.__dict__.update(
            ipfs_fetch_mode="ipfs_connection", fetch_retries=0
        )
        digest = dag_pb_digest(manifest("twice"))
        capture = self.start([DigestRead(ref(1), digest)])
        for _ in range(2):  # the dag-pb CID, then the raw one
            self.act_until(lambda: self.get_quantity_in_outbox() >= 1)
            self.answer_ipfs_files(files)
            self.behaviour.act_wrapper()
        self.act_until(lambda: bool(capture.payloads))
        detail = self.skill.skill_context.state.fetch_diagnostics[digest]
        assert (
            f"IPFS connection answered {len(files)} files: a manifest's CID must name "
            "one file" in detail
        ), detail


class TestPreviousCatalogue(_EdgeCase):
    """``previous_catalogue``: the kept catalogue counts only under an agreed digest."""

    def previous(self, agreed: str, kept_digest: str) -> Any:
        """Enter with ``catalogue_digest=agreed`` and a kept catalogue recorded as ``kept_digest``.

        :param agreed: the agreed catalogue digest.
        :param kept_digest: the digest recorded with the kept catalogue.
        :return: what ``previous_catalogue`` gives.
        """
        state = self.skill.skill_context.state
        state.kept_catalogue = Catalogue.build([])
        state.kept_catalogue_digest = kept_digest
        self.go_to(FetchManifestsBehaviour, {"catalogue_digest": agreed})
        return cast(FetchManifestsBehaviour, self.current()).previous_catalogue()

    def test_kept_catalogue_needs_an_agreed_digest(self) -> None:
        """Kept under the agreed digest: it is the previous one; nothing agreed: none is.

        Nothing agreed yet and a kept catalogue recorded without a digest must not match.
        """
        digest = Catalogue.build([]).digest()
        assert (
            self.previous(digest, digest)
            is self.skill.skill_context.state.kept_catalogue
        )
        assert self.previous("", "") is None
        assert self.previous(digest, "ab" * 32) is None


class TestOwnCodePointer(_EdgeCase):
    """A mech's own ``code_uri``: problems name the mech, as its component 0."""

    def test_a_code_uri_that_is_not_ipfs_names_the_mech(self) -> None:
        """``code_uri`` is an https URL: no request leaves; the warning names the mech.

        The message is the mech's own component (0) and its key, so an operator can tell
        which registration carries the bad pointer.
        """
        document = json.loads(manifest("pointed"))
        document["code_uri"] = "https://example.org/package.tar.gz"
        data = json.dumps(document).encode()
        capture = self.start([DigestRead(ref(1), dag_pb_digest(data))])
        self.deliver_gateway_response(self.outbox_message(HttpMessage), 200, "", data)
        self.act_until(lambda: bool(capture.payloads))
        assert self.get_quantity_in_outbox() == 0
        mech = self.skill.skill_context.state.candidate[0].mech(ref(1))
        messages = [
            p.message for p in mech.problems if p.message.startswith("component")
        ]
        assert messages and messages[0].startswith(
            f"component 0: {ref(1).key}: code_uri 'https://example.org/package.tar.gz' "
            "is not ipfs://CID"
        ), messages

    def test_a_code_reader_that_raises_costs_only_the_derivation(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        """A bug in the code reader (mocked: it raises) stops neither the period nor the agent.

        The reader is replaced because the domain's readers report every known fault as
        a problem; this is the behaviour's last guard, for one that is not known yet.

        :param caplog: pytest's log capture.
        """
        document = json.loads(manifest("pointed"))
        document["code_uri"] = f"ipfs://{digest_to_cid('0x' + 'cd' * 32)}"
        data = json.dumps(document).encode()

        def raising_reader(*_: Any) -> Generator[Any, Any, Any]:
            raise RuntimeError("a deriver bug")
            yield  # pylint: disable=unreachable

        with (
            mock.patch.object(fetch_manifests, "code_pointer_reader", raising_reader),
            caplog.at_level(logging.ERROR),
        ):
            capture = self.start([DigestRead(ref(1), dag_pb_digest(data))])
            self.deliver_gateway_response(
                self.outbox_message(HttpMessage), 200, "", data
            )
            self.act_until(lambda: bool(capture.payloads))
        mech = self.skill.skill_context.state.candidate[0].mech(ref(1))
        assert mech.status == "ok"
        assert [t.name for t in mech.tools] == ["pointed"]  # as declared
        assert any(
            message.endswith(
                f"code derivation for {ref(1).key} failed (RuntimeError: a deriver "
                "bug); its tools keep their declared arguments this period. Report it."
            )
            for message in caplog.messages
        ), caplog.messages

    def test_packages_of_several_mechs_are_asked_for_together(self) -> None:
        """Two mechs' code_uri packages: both root blocks are requested in one step.

        Read one after another, packages whose blocks never come cost one fetch timeout
        each (twelve such registrations held the fetch round past its timeout).
        """
        code = {
            mech_id: digest_to_cid("0x" + f"{mech_id:02x}" * 32) for mech_id in (1, 2)
        }
        manifests = {}
        for mech_id, cid in code.items():
            document = json.loads(manifest(f"pointed-{mech_id}"))
            document["code_uri"] = f"ipfs://{cid}"
            manifests[mech_id] = json.dumps(document).encode()
        self.start(
            [DigestRead(ref(i), dag_pb_digest(data)) for i, data in manifests.items()]
        )
        by_cid = {dag_pb_digest(data): data for data in manifests.values()}
        for _ in manifests:  # fetch_concurrency 1: one manifest GET at a time
            request = self.outbox_message(HttpMessage)
            digest = next(d for d in by_cid if digest_to_cid(d) in request.url)
            self.deliver_gateway_response(request, 200, "", by_cid[digest])
            self.act_until(lambda: self.get_quantity_in_outbox() > 0)
        # the first block request: the other package's is already beside it
        self.act_until(lambda: self.get_quantity_in_outbox() > 0)
        urls = [
            self.outbox_message(HttpMessage).url
            for _ in range(self.get_quantity_in_outbox())
        ]
        assert sorted(u.split("/ipfs/")[1] for u in urls) == [
            f"{code[1]}?format=raw",
            f"{code[2]}?format=raw",
        ]


class TestFetchOrder(_EdgeCase):
    """``fetch_all`` asks for served mechs' digests first and last period's failures last."""

    def first_asked(self, failed_low: bool) -> Tuple[str, str]:
        """Fetch two manifests one at a time; return the CID asked first and the expected one.

        The lower digest is mech 1's, the higher mech 2's. With ``failed_low`` mech 1's
        digest failed last period; otherwise mech 2 was served (``ok``) in the agreed
        previous catalogue. Either way mech 2's digest must be asked first.

        :param failed_low: which history to give (see above).
        :return: ``(first CID asked, mech 2's CID)``.
        """
        low, high = sorted([manifest("first"), manifest("second")], key=dag_pb_digest)
        state = self.skill.skill_context.state
        agreed = ""
        if failed_low:
            state.failing_digests = frozenset({dag_pb_digest(low)})
        else:
            previous = Catalogue.build(
                [Mech(ref(2), digest="0x" + "ab" * 32, status="ok")]
            )
            state.kept_catalogue = previous
            state.kept_catalogue_digest = agreed = previous.digest()
        snapshot = RegistrySnapshot.build(
            20,
            [
                DigestRead(ref(1), dag_pb_digest(low)),
                DigestRead(ref(2), dag_pb_digest(high)),
            ],
        )
        self.go_to(
            FetchManifestsBehaviour,
            {
                "registry_snapshot_block": 20,
                "registry_snapshot_digest": self.keep_snapshot(snapshot),
                "catalogue_digest": agreed,
            },
        )
        capture = _CapturePayload(self.behaviour.current_behaviour)
        self.behaviour.act_wrapper()
        by_url = {
            f"{GATEWAY}/ipfs/{digest_to_cid(dag_pb_digest(d), DAG_PB)}": d
            for d in (low, high)
        }
        asked = self.serve_until_payload(capture, lambda url: (200, "", by_url[url]))
        return asked[0], f"{GATEWAY}/ipfs/{digest_to_cid(dag_pb_digest(high), DAG_PB)}"

    def test_a_served_mechs_new_manifest_is_asked_first(self) -> None:
        """Mech 2 was served last period: its digest goes before a lower, new one."""
        first, expected = self.first_asked(failed_low=False)
        assert first == expected

    def test_last_periods_failure_is_asked_last(self) -> None:
        """Mech 1's lower digest failed last period: mech 2's goes first."""
        first, expected = self.first_asked(failed_low=True)
        assert first == expected


class TestManifestCacheAfterAPeriod(_EdgeCase):
    """What the manifest cache keeps after a period, and how a cached manifest is parsed."""

    def test_current_and_previous_manifests_are_kept(self) -> None:
        """The cache keeps this period's CIDs and the previous catalogue's, and drops the rest.

        The previous catalogue served mech 2 under CID P; this period mech 1's manifest (CID
        C) is fetched; an unrelated cached CID is dropped.
        """
        current, old = manifest("current"), manifest("old")
        current_cid = digest_to_cid(dag_pb_digest(current), DAG_PB)
        old_cid = digest_to_cid(dag_pb_digest(old), DAG_PB)
        stray_cid = digest_to_cid(dag_pb_digest(b"stray"), DAG_PB)
        state = self.skill.skill_context.state
        state.manifest_cache.put(old_cid, old)
        state.manifest_cache.put(stray_cid, b"stray")
        previous = Catalogue.build(
            [Mech(ref(2), digest=dag_pb_digest(old), cid=old_cid, status="ok")]
        )
        state.kept_catalogue = previous
        state.kept_catalogue_digest = previous.digest()
        capture = self.start(
            [DigestRead(ref(1), dag_pb_digest(current))], previous.digest()
        )
        self.deliver_gateway_response(
            self.outbox_message(HttpMessage), 200, "", current
        )
        self.act_until(lambda: bool(capture.payloads))
        cache = state.manifest_cache
        assert current_cid in cache and old_cid in cache and stray_cid not in cache

    def test_a_cached_manifest_over_the_cap_is_refused(self) -> None:
        """A manifest cached under a larger cap is parsed with today's ``max_manifest_bytes``.

        The bytes verify against the digest and cost no GET, but are over the 4,096-byte
        cap: the mech is not served.
        """
        document = json.loads(manifest("bulky"))
        document["description"] = "x" * 5000
        data = json.dumps(document).encode()
        self.skill.skill_context.state.manifest_cache.put(
            digest_to_cid(dag_pb_digest(data), DAG_PB), data
        )
        capture = self.start([DigestRead(ref(1), dag_pb_digest(data))])
        self.act_until(lambda: bool(capture.payloads))
        assert self.get_quantity_in_outbox() == 0
        mech = self.skill.skill_context.state.candidate[0].mech(ref(1))
        assert mech.status != "ok" and not mech.tools, mech
