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

"""Our catalogue composed with mech-interact's own code (v0.32.3, unchanged).

What runs here: mech-interact's packages synced and verified against its packages.json;
its ``MechInteractAbciApp`` chained with our apps and the requester skill's consumer round
(wrapped alone by ``tests/composition/consumer.py``); its ``SynchronizedData`` ranking our ``mechs_info``
read from the devnet's real MechMarketplace; its ``AgentMech`` contract class building
the request call; its ``MechMM.get_response`` finding the delivery, and the response
read at the URL its ``MechResponseBehaviour`` builds. The mech operator is the devnet
responder, a stand-in (``scripts/devnet/responder.py``).

mech-interact's behaviours and rounds run in ``test_mech_interact_behaviours.py``. Here the
request is sent from a real Gnosis Safe (the devnet service's Safe, ``execTransaction``)
with the calldata mech-interact's contract class builds.
"""

import json
import shutil
import subprocess  # nosec B404: runs this interpreter on fixed code
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Dict

import pytest
import requests
from aea.configurations.data_types import PackageId
from mech_catalogue_core.catalogue.mech_request import SELECTED_MECHS, choose_offer
from mech_catalogue_core.catalogue.views import (
    views_document,
    views_from_document,
)
from mech_catalogue_core.chain.marketplace import (
    attach_facts,
)
from mech_catalogue_core.model.canonical import (
    canonical_text,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_OK,
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.market import (
    MechFacts,
)
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
    Argument,
    MechRef,
    Tool,
)
from web3.types import RPCEndpoint

from scripts.devnet import Devnet
from scripts.devnet.marketplace import NATIVE_PAYMENT_TYPE, discover, read_facts
from scripts.devnet.responder import DEFAULT_RESULT, Responder
from scripts.sync_packages import (
    MECH_INTERACT_DIR,
    MECH_INTERACT_SOURCE,
    PACKAGES_DIR,
    REPO_ROOT,
    SyncError,
    ipfs_hash,
    mech_interact_missing_notice,
    open_autonomy_packages,
    package_dir,
    sync_mech_interact,
)
from tests.composition.chain import composed_app
from tests.composition.consumer import (
    ConsumerError,
    choose_request,
    payload_of,
)
from tests.devnet.test_responder import deploy_service
from tests.mech_interact import load_mech_interact

TOOL = "prediction-online"
ARGUMENTS = {"max_tokens": 120, "temperature": 0.25, "sources": ["reuters", "ap"]}


def typed_tool() -> Tool:
    """A tool with typed arguments (what a manifest's ``input.schema`` gives).

    :return: the tool.
    """
    return Tool(
        name=TOOL,
        arguments=(
            Argument(
                "max_tokens",
                "int",
                canonical_text({"type": "integer", "minimum": 1}),
                required=True,
            ),
            Argument(
                "temperature",
                "float",
                canonical_text({"type": "number", "minimum": 0, "maximum": 2}),
                required=False,
            ),
            Argument(
                "sources",
                "list",
                canonical_text({"type": "array", "items": {"type": "string"}}),
                required=False,
            ),
        ),
    )


def source_copy(tmp_path: Path) -> Path:
    """Copy mech-interact's released packages/ folder (skip when it is absent).

    :param tmp_path: a temporary folder.
    :return: the copy.
    """
    if not (MECH_INTERACT_SOURCE / "packages.json").is_file():
        pytest.skip(mech_interact_missing_notice(MECH_INTERACT_SOURCE))
    copy = tmp_path / "source"
    shutil.copytree(MECH_INTERACT_SOURCE, copy)
    return copy


def test_sync_copies_every_released_package_verified(tmp_path: Path) -> None:
    """14 packages, each hashing to mech-interact's packages.json; a re-run keeps them."""
    source = source_copy(tmp_path)
    listing = json.loads((source / "packages.json").read_text())["dev"]
    destination = tmp_path / "synced"
    outcomes = sync_mech_interact(source, destination)
    assert len(outcomes) == len(listing) == 14
    assert {o.action for o in outcomes} == {"copied"}
    skill = destination / "valory" / "skills" / "mech_interact_abci"
    assert ipfs_hash(skill) == listing["skill/valory/mech_interact_abci/0.1.0"]
    assert {o.action for o in sync_mech_interact(source, destination)} == {"kept"}


#: one sync in its own process: imports first, says it is ready, waits for the start signal
CONCURRENT_SYNC = """
import sys, time
from pathlib import Path
from scripts.sync_packages import sync_mech_interact
source, destination, ready, start = map(Path, sys.argv[1:])
ready.touch()
while not start.exists():
    time.sleep(0.005)
print(" ".join(sorted({o.action for o in sync_mech_interact(source, destination)})))
"""


def test_concurrent_syncs_into_one_folder_take_turns(tmp_path: Path) -> None:
    """Four processes sync at once (as pytest-xdist workers do): one copies, three keep.

    None fails, and every package hashes to mech-interact's packages.json afterwards.

    :param tmp_path: a temporary folder.
    """
    source = source_copy(tmp_path)
    listing = json.loads((source / "packages.json").read_text())["dev"]
    destination, start = tmp_path / "synced", tmp_path / "start"
    readies = [tmp_path / f"ready-{n}" for n in range(4)]
    workers = [
        subprocess.Popen(  # nosec B603  # pylint: disable=consider-using-with
            [sys.executable, "-c", CONCURRENT_SYNC, str(source), str(destination)]
            + [str(ready), str(start)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO_ROOT,
        )
        for ready in readies
    ]
    deadline = time.monotonic() + 120
    while not all(ready.exists() for ready in readies) and time.monotonic() < deadline:
        time.sleep(0.01)
    start.touch()
    results = [worker.communicate(timeout=120) for worker in workers]
    assert [worker.returncode for worker in workers] == [0] * 4, results
    assert sorted(out.strip() for out, _ in results) == ["copied"] + ["kept"] * 3
    for uri, expected in listing.items():
        assert (
            ipfs_hash(package_dir(destination, PackageId.from_uri_path(uri)))
            == expected
        )


def test_sync_refuses_a_modified_package_and_names_it(tmp_path: Path) -> None:
    """One changed byte in the skill: no copy, the package and both hashes named."""
    source = source_copy(tmp_path)
    rounds = source / "valory" / "skills" / "mech_interact_abci" / "rounds.py"
    rounds.write_text(rounds.read_text() + "\n# changed\n")
    with pytest.raises(SyncError) as caught:
        sync_mech_interact(source, tmp_path / "synced")
    message = caught.value.message
    assert "skill/valory/mech_interact_abci/0.1.0" in message
    assert "expected hash bafybei" in message and "actual bafybei" in message
    assert not (
        tmp_path / "synced" / "valory" / "skills" / "mech_interact_abci"
    ).exists()


def test_sync_says_what_to_provide_and_never_writes_packages(tmp_path: Path) -> None:
    """No release folder: the message names the tag and where; packages/ is refused."""
    with pytest.raises(SyncError) as caught:
        sync_mech_interact(tmp_path / "nowhere", tmp_path / "synced")
    assert "tag v0.32.3" in caught.value.message
    assert str(tmp_path / "nowhere") in caught.value.message
    source = source_copy(tmp_path)
    with pytest.raises(SyncError, match="never synced into packages/"):
        sync_mech_interact(source, PACKAGES_DIR)


def test_the_chain_routes_our_rounds_through_mech_interacts() -> None:
    """chain() accepts mech-interact's app between ours; each hop lands on its real class."""
    app, _ = composed_app()
    # pylint: disable=import-error,no-name-in-module,import-outside-toplevel
    from packages.mech_catalogue.skills.requester_chained_abci.consumer import (
        Event,
        ToolChoiceRound,
    )
    from packages.mech_catalogue.skills.tool_metadata_abci.rounds import (
        FetchManifestsRound,
    )
    from packages.valory.skills.mech_interact_abci.states.request import (
        MechRequestRound,
    )
    from packages.valory.skills.mech_interact_abci.states.response import (
        MechResponseRound,
    )
    from packages.valory.skills.transaction_settlement_abci.rounds import (
        RandomnessTransactionSubmissionRound,
        ValidateTransactionRound,
    )

    table = app.transition_function
    assert FetchManifestsRound in table and MechRequestRound in table
    assert table[ToolChoiceRound][Event.DONE] is MechRequestRound
    done = next(e for e in table[MechRequestRound] if e.value == "done")
    assert table[MechRequestRound][done] is RandomnessTransactionSubmissionRound
    validated = next(e for e in table[ValidateTransactionRound] if e.value == "done")
    assert table[ValidateTransactionRound][validated] is MechResponseRound
    assert MechResponseRound in table


def catalogue_of_devnet(devnet: Devnet) -> Catalogue:
    """Our catalogue over the devnet's marketplace: real facts, one typed tool per service.

    :param devnet: the devnet.
    :return: the catalogue with the facts read through Multicall2 attached.
    """
    checkpoint, _ = discover(devnet, None)
    _, facts, _ = read_facts(devnet, list(checkpoint.mechs))
    registry = devnet.info.contracts["ComplementaryServiceMetadata"].lower()
    catalogue = Catalogue.build(
        Mech(
            MechRef(
                devnet.info.chain_id, REGISTRY_COMPLEMENTARY_SERVICE, registry, sid
            ),
            digest="0x" + "ab" * 32,
            status=STATUS_OK,
            tools=(typed_tool(),),
        )
        for sid in {f.service_id for f in facts if f.service_id is not None}
    )
    return attach_facts(catalogue, facts)


def mech_interact_data(catalogue: Catalogue, updates: Dict[str, Any]) -> Any:
    """mech-interact's SynchronizedData over our views and the consumer's updates.

    :param catalogue: the catalogue.
    :param updates: the consumer's keys.
    :return: the synchronized data.
    """
    load_mech_interact()
    # pylint: disable=import-error,no-name-in-module,import-outside-toplevel
    from packages.valory.skills.abstract_round_abci.base import AbciAppDB
    from packages.valory.skills.mech_interact_abci.states.base import (
        SynchronizedData,
    )

    mechs_info, mech_tools = views_from_document(views_document(catalogue))
    setup = {"mechs_info": mechs_info, "mech_tools": mech_tools, **updates}
    return SynchronizedData(AbciAppDB(setup_data=AbciAppDB.data_to_lists(setup)))


def rankable_facts(service_id: int) -> Any:
    """Complete, confirmed facts of one marketplace mech of ``service_id``.

    :param service_id: the service id.
    :return: the facts.
    """
    return MechFacts(
        address="0x" + f"{service_id:040x}",
        service_id=service_id,
        block=10,
        confirmed=True,
        max_delivery_rate=10**16,
        requests=3,
        deliveries=2,
        karma=1,
    )


def test_the_consumer_rejects_bad_calls_with_every_reason() -> None:
    """No facts, unknown tool, each schema violation: each a reason; the vote is ''.

    Without facts the entries' mechs_info items are zeros, which mech-interact's ranking
    cannot take (``log(0)``): the consumer makes no request rather than reach it.
    """
    catalogue = Catalogue.build(
        [
            Mech(
                MechRef(1, REGISTRY_COMPLEMENTARY_SERVICE, "0x" + "cc" * 20, 1),
                digest="0x" + "ab" * 32,
                status=STATUS_OK,
                tools=(typed_tool(),),
            )
        ]
    )
    with pytest.raises(ConsumerError, match="none with marketplace facts"):
        choose_request(catalogue, TOOL, "p", {"max_tokens": 1}, "n")
    catalogue = attach_facts(catalogue, [rankable_facts(1)])
    with pytest.raises(ConsumerError, match=r"offers tool 'nope'.*prediction-online"):
        choose_request(catalogue, "nope", "p", {}, "n")
    with pytest.raises(ConsumerError) as caught:
        choose_request(
            catalogue, TOOL, "p", {"max_tokens": 0, "sources": ["a", 3]}, "n"
        )
    message = str(caught.value)
    assert "max_tokens: 0 is less than the minimum of 1" in message
    assert "sources/1: 3 is not of type 'string'" in message
    with pytest.raises(ConsumerError, match="'max_tokens' is a required property"):
        choose_request(catalogue, TOOL, "p", {"temperature": 1}, "n")
    errors: list = []
    assert (
        payload_of(
            catalogue,
            {"tool": TOOL, "prompt": "p", "arguments": {}, "nonce": "n"},
            errors,
        )
        == ""
    )
    assert "required property" in errors[0]


def test_mech_interact_reads_the_consumers_request_and_ranks_our_mechs(
    devnet: Devnet,
) -> None:
    """Its MechMetadata carries the typed arguments; its ranking runs on our devnet facts."""
    catalogue = catalogue_of_devnet(devnet)
    updates = choose_request(catalogue, TOOL, "Will it rain?", ARGUMENTS, "nonce-1")
    data = mech_interact_data(catalogue, updates)
    (metadata,) = data.mech_requests
    assert (metadata.tool, metadata.prompt, metadata.nonce) == (
        TOOL,
        "Will it rain?",
        "nonce-1",
    )
    assert metadata.extra_attributes == ARGUMENTS
    seeded = {  # mechs priced in the native token: mechs_info leaves token mechs out
        m["address"].lower()
        for m in devnet.info.mechs
        if m["kind"] == "marketplace" and m.get("asset", "native") == "native"
    }
    # without the consumer's pin, mech-interact would rank every seeded native mech
    unpinned = mech_interact_data(
        catalogue, {k: v for k, v in updates.items() if k != SELECTED_MECHS}
    )
    assert seeded and {a.lower() for a in unpinned.ranked_mechs_addresses} == seeded
    # with it, only the mech the catalogue's offer rule chose (tenure, not karma)
    chosen = choose_offer(catalogue, TOOL).facts.address
    assert chosen in seeded
    assert [a.lower() for a in data.ranked_mechs_addresses] == [chosen]


def test_a_paid_request_to_the_mech_mech_interact_ranks_first_is_answered(  # pylint: disable=too-many-locals
    chain_snapshot: Devnet,
) -> None:
    """Ranked first on our data -> paid request from a Safe -> delivered -> response read.

    The request's IPFS payload is built as mech-interact's ``_send_metadata_to_ipfs``
    builds it (``asdict(MechMetadata)`` with ``extra_attributes`` merged at the top level;
    those six lines are reproduced here because the method needs a running behaviour).

    :param chain_snapshot: the session devnet, its chain changes reverted afterwards.
    """
    devnet = chain_snapshot
    catalogue = catalogue_of_devnet(devnet)
    updates = choose_request(catalogue, TOOL, "Will it rain?", ARGUMENTS, "nonce-2")
    data = mech_interact_data(catalogue, updates)
    chosen = data.ranked_mechs_addresses[0]
    # pylint: disable=import-error,no-name-in-module,import-outside-toplevel
    from aea.contracts.base import Contract
    from aea_ledger_ethereum import EthereumApi

    from packages.valory.skills.mech_interact_abci.behaviours.response import (
        IPFS_HASH_PREFIX,
    )

    # the contract packages mech-interact's behaviours call, loaded as an agent loads them
    agent_mech = Contract.from_dir(
        str(open_autonomy_packages() / "valory" / "contracts" / "agent_mech")
    )
    mech_mm = Contract.from_dir(
        str(MECH_INTERACT_DIR / "valory" / "contracts" / "mech_mm")
    )

    payload = asdict(data.mech_requests[0])
    payload.update(payload.pop("extra_attributes") or {})
    request_cid, digest = devnet.add_manifest(json.dumps(payload).encode())

    ledger = EthereumApi(address=devnet.info.rpc_url, chain_id=devnet.info.chain_id)
    marketplace = devnet.info.contracts["MechMarketplace"]
    price = devnet.mech(chosen).functions.maxDeliveryRate().call()
    call = agent_mech.get_request_data(  # type: ignore[attr-defined]
        ledger,
        marketplace,
        request_data=digest,
        priority_mech=chosen,
        max_delivery_rate=price,
        payment_type="0x" + NATIVE_PAYMENT_TYPE.hex(),
        payment_data=b"",
        response_timeout=300,
    )["data"]
    # the ranked-first mech's service must be operating (have a Safe) to deliver
    service_id = devnet.mech(chosen).functions.serviceId().call()
    if devnet.service_multisig(service_id) is None:
        deploy_service(devnet, service_id)
    requester = next(
        s["multisig"] for s in devnet.info.services.values() if s.get("multisig")
    )
    devnet.w3.provider.make_request(
        RPCEndpoint("anvil_setBalance"), [requester, hex(10**18)]
    )
    start = devnet.w3.eth.block_number + 1
    balance_before = devnet.w3.eth.get_balance(requester)
    with Responder(devnet.info, [chosen], from_block=start, interval=0.2) as responder:
        receipt = devnet.exec_safe_transaction(
            requester, marketplace, call, value=price
        )
        events = agent_mech.process_request_event(  # type: ignore[attr-defined]
            ledger, marketplace, receipt["transactionHash"].hex(), expected_logs=1
        )
        request_id_hex = events["results"][0]["requestIds"][0]
        request_id = bytes.fromhex(request_id_hex.removeprefix("0x"))
        responder.wait_for(request_id)
    assert devnet.w3.eth.get_balance(requester) == balance_before - price

    delivered = mech_mm.get_response(  # type: ignore[attr-defined]
        ledger, chosen, request_id, from_block=start
    )
    assert "data" in delivered, delivered
    url = (
        f"{devnet.info.ipfs_gateway_url.rstrip('/')}/ipfs/{IPFS_HASH_PREFIX}"
        f"{bytes(delivered['data']).hex()}/{int(request_id_hex, 16)}"
    )
    document = requests.get(url, timeout=30).json()
    assert document["result"] == DEFAULT_RESULT
    assert document["tool"] == TOOL and document["arguments"] == ARGUMENTS
    sent = json.loads(devnet.ipfs.cat(request_cid))
    assert {k: sent[k] for k in ARGUMENTS} == ARGUMENTS and sent["tool"] == TOOL
