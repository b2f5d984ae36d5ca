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

"""FetchManifestsBehaviour's request window: what mutation testing showed no test pinned.

Each test drives the real behaviour through open-autonomy's ``FSMBehaviourBaseCase`` (the
connections played by the test, as in ``test_fetch_manifests.py``) and asserts what the
window promises: a late answer to an expired request never passes for the answer to its
retry; the window waits out a ``Retry-After`` when nothing is in flight; each manifest is
parsed as it arrives; the unanswered count in the log is exact; an IPFS connection's
refusal is named in the fetch diagnostics.
"""

import json
import time
from pathlib import Path
from typing import Any, Generator, List, cast
from unittest import mock

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
    digest_to_cid,
)
from mech_catalogue_core.tests.kubo import (
    Kubo,
    kubo_repo,
)

from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.fetch_manifests import (
    FetchManifestsBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    FALLBACK,
    GATEWAY,
    ToolMetadataBehaviourCase,
    _CapturePayload,
    dag_pb_digest,
    manifest,
    ref,
)
from packages.valory.protocols.http import HttpMessage
from packages.valory.protocols.ipfs import IpfsMessage
from packages.valory.skills.abstract_round_abci.behaviour_utils import (
    IPFS_CONNECTION_ID,
)


class _WindowCase(ToolMetadataBehaviourCase):
    """FetchManifestsBehaviour entered with an agreed snapshot; the test answers the outbox."""

    def setup_method(self, **kwargs: Any) -> None:
        """Start every test with one fresh gateway (no fallback, health or holds left by another test)."""
        super().setup_method(**kwargs)
        self.skill.skill_context.params.__dict__["ipfs_fallback_gateway_urls"] = ()
        self.skill.skill_context.state.gateways = None
        self.skill.skill_context.state.derivations = DerivationCache()  # in memory only

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

    def outbox_size(self) -> int:
        """Count the messages waiting in the outbox.

        :return: the count.
        """
        return self.get_quantity_in_outbox()


class TestFetchWindowEdges(_WindowCase):
    """The window over the outbox, answered by the test."""

    def test_a_late_answer_never_passes_for_the_retry(self) -> None:
        """A late answer to an expired request is not taken as the answer to its retry.

        The preferred gateway's request expires and the CID goes to the fallback; the first
        gateway's late answer then arrives: the behaviour keeps waiting for the fallback's
        own answer, and the manifest served is the fallback's.
        """
        self.skill.skill_context.params.__dict__.update(
            fetch_timeout_seconds=0.2, ipfs_fallback_gateway_urls=(FALLBACK,)
        )
        data = manifest("late")
        capture = self.start([DigestRead(ref(1), dag_pb_digest(data))])
        first = self.outbox_message(HttpMessage)
        assert first.url.startswith(GATEWAY)
        self.act_until(lambda: self.outbox_size() == 1)  # expired: the retry leaves
        second = self.outbox_message(HttpMessage)
        assert second.url.startswith(FALLBACK)
        self.deliver_gateway_response(first, 200, "", manifest("impostor"))
        for _ in range(5):
            self.behaviour.act_wrapper()
        assert not capture.payloads  # still waiting for the fallback's answer
        self.deliver_gateway_response(second, 200, "", data)
        self.act_until(lambda: bool(capture.payloads))
        assert self.views_of(capture.payloads[0])["mech_tools"] == ["late"]

    def test_retry_after_with_nothing_in_flight_is_waited_out(self) -> None:
        """One gateway answering 429 with Retry-After: 1 is asked again once it may be.

        Nothing is in flight meanwhile: the window sleeps until the gateway may be asked
        again, then asks it (no stall, no error).
        """
        data = manifest("patient")
        capture = self.start([DigestRead(ref(1), dag_pb_digest(data))])
        first = self.outbox_message(HttpMessage)
        self.deliver_gateway_response(first, 429, "Retry-After: 1\n", b"")
        began = time.monotonic()
        self.act_until(lambda: self.outbox_size() == 1)
        assert time.monotonic() - began >= 0.5  # held by the Retry-After
        second = self.outbox_message(HttpMessage)
        assert second.url == first.url
        self.deliver_gateway_response(second, 200, "", data)
        self.act_until(lambda: bool(capture.payloads))
        assert self.views_of(capture.payloads[0])["mech_tools"] == ["patient"]

    def test_each_manifest_is_parsed_as_it_arrives(self) -> None:
        """Two GETs in flight: the first answer is parsed before the second arrives."""
        self.skill.skill_context.params.__dict__["fetch_concurrency"] = 2
        first_data, second_data = manifest("one"), manifest("two")
        parsed: List[bytes] = []
        real_parse = FetchManifestsBehaviour.parse

        def parse(behaviour: Any, data: bytes) -> Any:
            parsed.append(data)
            return real_parse(behaviour, data)

        with mock.patch.object(FetchManifestsBehaviour, "parse", parse):
            capture = self.start(
                [
                    DigestRead(ref(1), dag_pb_digest(first_data)),
                    DigestRead(ref(2), dag_pb_digest(second_data)),
                ]
            )
            requests = [self.outbox_message(HttpMessage) for _ in range(2)]
            by_url = {
                f"{GATEWAY}/ipfs/{digest_to_cid(dag_pb_digest(d), DAG_PB)}": d
                for d in (first_data, second_data)
            }
            self.deliver_gateway_response(requests[0], 200, "", by_url[requests[0].url])
            self.behaviour.act_wrapper()
            assert parsed == [by_url[requests[0].url]]  # before the second answer
            self.deliver_gateway_response(requests[1], 200, "", by_url[requests[1].url])
            self.act_until(lambda: bool(capture.payloads))
        assert sorted(parsed) == sorted([first_data, second_data])  # once each
        assert self.views_of(capture.payloads[0])["mech_tools"] == ["one", "two"]

    def test_unanswered_requests_are_counted_exactly(self) -> None:
        """All answered: no 'unanswered' warning; one request expired: '1 IPFS requests unanswered'."""
        data = manifest("counted")
        logger = self.skill.skill_context.logger
        with mock.patch.object(logger, "warning") as warning:
            capture = self.start([DigestRead(ref(1), dag_pb_digest(data))])
            request = self.outbox_message(HttpMessage)
            self.deliver_gateway_response(request, 200, "", data)
            self.act_until(lambda: bool(capture.payloads))
        assert not [c for c in warning.call_args_list if "unanswered" in str(c)]

        self.skill.skill_context.params.__dict__.update(
            fetch_timeout_seconds=0.1, fetch_retries=0
        )
        other = manifest("silent")
        sent = 0

        def drained() -> bool:
            nonlocal sent
            while self.get_message_from_outbox() is not None:
                sent += 1
            return bool(capture.payloads)

        with mock.patch.object(logger, "warning") as warning:
            capture = self.start([DigestRead(ref(2), dag_pb_digest(other))])
            self.act_until(drained)
        counts = [
            int(str(c.args[0]).split()[0])
            for c in warning.call_args_list
            if "IPFS requests unanswered after 0.1s" in str(c)
        ]
        assert 1 <= sent == sum(counts)  # every GET sent went unanswered

    def test_an_ipfs_connection_refusal_is_named(self) -> None:
        """ipfs_connection mode, the connection answers ERROR: the diagnostics name its reason."""
        self.skill.skill_context.params.__dict__.update(
            ipfs_fetch_mode="ipfs_connection", fetch_retries=0
        )
        data = manifest("refused")
        digest = dag_pb_digest(data)
        capture = self.start([DigestRead(ref(1), digest)])
        for _ in range(2):  # the dag-pb CID, then the raw one
            self.act_until(lambda: self.outbox_size() >= 1)
            request = self.outbox_message(IpfsMessage)
            assert request.timeout == 5.0  # fetch_timeout_seconds of the set-up
            self.skill.skill_context.handlers.ipfs.handle(
                self.build_incoming_message(
                    message_type=IpfsMessage,
                    dialogue_reference=(request.dialogue_reference[0], "stub"),
                    performative=IpfsMessage.Performative.ERROR,
                    target=request.message_id,
                    message_id=-1,
                    to=str(self.skill.skill_context.skill_id),
                    sender=str(IPFS_CONNECTION_ID),
                    reason="node has no such block",
                )
            )
            self.behaviour.act_wrapper()
            if capture.payloads:
                break
        self.act_until(lambda: bool(capture.payloads))
        detail = self.skill.skill_context.state.fetch_diagnostics[digest]
        assert "IPFS connection answered error: node has no such block" in detail


class TestCodeBlocksThroughTheGateway(_WindowCase):
    """A mech's own ``code_uri``: its blocks are asked of the gateway, raw and capped."""

    def test_code_blocks_are_requested_raw_and_a_missing_one_is_a_warning(self) -> None:
        """An untyped tool's code blocks are asked raw; a missing one is a warning.

        One ``?format=raw`` GET (Accept raw, Range); a 404 leaves the mech served with a
        code_fetch_failed warning.
        """
        document = json.loads(manifest("coded"))
        package = digest_to_cid(dag_pb_digest(b"package"), DAG_PB)
        document["code_uri"] = f"ipfs://{package}"
        data = json.dumps(document).encode()
        capture = self.start([DigestRead(ref(1), dag_pb_digest(data))])
        self.deliver_gateway_response(self.outbox_message(HttpMessage), 200, "", data)
        self.act_until(lambda: self.outbox_size() == 1)
        block = self.outbox_message(HttpMessage)
        assert block.url.startswith(f"{GATEWAY}/ipfs/") and block.url.endswith(
            "?format=raw"
        )
        headers = block.headers.splitlines()
        assert "Accept: application/vnd.ipld.raw" in headers
        assert any(h.startswith("Range: bytes=0-") for h in headers)
        self.deliver_gateway_response(block, 404, "", b"")
        self.act_until(lambda: bool(capture.payloads))
        mech = self.skill.skill_context.state.candidate[0].mech(ref(1))
        assert mech.status == "ok" and [t.name for t in mech.tools] == ["coded"]
        assert "code_fetch_failed" in [str(p.code) for p in mech.problems]

    def test_code_blocks_served_give_the_tool_its_arguments(
        self, tmp_path: Path
    ) -> None:
        """A real package's blocks served raw give the untyped tool its code's arguments.

        The package is added by kubo; each block is asked once.

        :param tmp_path: pytest's temporary folder (the package's files).
        """
        repo = cast(Generator[Kubo, None, None], kubo_repo())
        kubo = next(repo)
        try:
            folder = tmp_path / "gas_estimator"
            folder.mkdir()
            (folder / "component.yaml").write_text(
                "name: gas_estimator\nauthor: tester\nversion: 0.1.0\ntype: custom\n"
                "description: Estimates gas.\nentry_point: gas_estimator.py\ncallable: run\n"
            )
            (folder / "gas_estimator.py").write_text(
                'AVAILABLE_TOOLS = ("estimate-gas",)\n\n\ndef run(**kwargs):\n'
                '    chain = kwargs.get("chain_id")\n'
                '    if chain is None:\n        return "missing", None, None, None\n'
                '    return str(kwargs.get("factor", 2.0)), chain, None, None\n'
            )
            package = kubo.add_directory(folder)
            document = json.loads(manifest("estimate-gas"))
            document["code_uri"] = f"ipfs://{package}"
            data = json.dumps(document).encode()
            capture = self.start([DigestRead(ref(1), dag_pb_digest(data))])
            self.deliver_gateway_response(
                self.outbox_message(HttpMessage), 200, "", data
            )
            asked: List[str] = []

            def serve() -> bool:
                while True:
                    request = self.get_message_from_outbox()
                    if request is None:
                        return bool(capture.payloads)
                    assert isinstance(request, HttpMessage)
                    cid = request.url.split("/ipfs/", 1)[1].split("?", 1)[0]
                    asked.append(cid)
                    block = kubo.block(cid)
                    assert block is not None, cid
                    self.deliver_gateway_response(request, 200, "", block)

            self.act_until(serve)
        finally:
            repo.close()
        mech = self.skill.skill_context.state.candidate[0].mech(ref(1))
        (tool,) = mech.tools
        names = {a.identifier: a for a in tool.arguments}
        assert names["chain_id"].required and "factor" in names
        assert tool.provenance.derived_cid
        assert (
            len(asked) == len(set(asked)) >= 2
        )  # the directory and its files, once each

    def test_no_gateway_means_no_block_request(self) -> None:
        """ipfs_connection mode: blocks cannot be fetched; no GET leaves, the warning says so."""
        self.skill.skill_context.params.__dict__["ipfs_fetch_mode"] = "ipfs_connection"
        document = json.loads(manifest("coded"))
        document["code_uri"] = (
            f"ipfs://{digest_to_cid(dag_pb_digest(b'package'), DAG_PB)}"
        )
        data = json.dumps(document).encode()
        digest = dag_pb_digest(data)
        capture = self.start([DigestRead(ref(1), digest)])
        self.answer_ipfs_files({digest_to_cid(digest, DAG_PB): data.decode()})
        self.act_until(lambda: bool(capture.payloads))
        assert self.outbox_size() == 0
        mech = self.skill.skill_context.state.candidate[0].mech(ref(1))
        assert mech.status == "ok"
        assert "code_fetch_failed" in [str(p.code) for p in mech.problems]
