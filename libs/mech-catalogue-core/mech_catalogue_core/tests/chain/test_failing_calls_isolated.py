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

"""One contract's getter cannot fail the others in a batch of strangers' calls.

The node here runs Multicall2's gas rule (each call is given 63/64 of the gas left) over
contracts of five kinds: honest getters, a reverting one, one that burns all it is given,
one whose return Multicall2 cannot copy (a huge reason or value: the whole ``eth_call``
errs even alone), and the node's error in any words (anvil's, geth's, Nethermind's, or
none known). Whatever a contract does, every other contract's call is answered.
"""

import math
from typing import Dict, Generator, List, Optional, Tuple

import pytest
from mech_catalogue_core.chain.marketplace import (
    MECH_KIND_MARKETPLACE,
    MechCreation,
    facts_reader,
)
from mech_catalogue_core.chain.registry import (
    BatchReply,
    BatchRequest,
    Call,
    ChainReadError,
    block_number_call,
    encode_call,
)
from mech_catalogue_core.chain.rpc_limits import (
    MAX_BATCH_GAS,
    batch_gas,
    batch_too_large,
    isolate_failing_calls,
    isolate_failing_calls_yielding,
    isolation_calls,
)
from mech_catalogue_core.driver import drive, drive_yielding

MULTICALL = "0x" + "c2" * 20
MARKET = "0x" + "a1" * 20
FACTORY = "0x" + "f4" * 20
PROBE = block_number_call(MULTICALL)
HONEST_GAS = 5_000
#: an honest getter needing more than its share of a batch's gas
HEAVY_GAS = 120_000
#: gas Multicall2 needs per call for its own loop and the result's encoding
LOOP_GAS = 2_000
#: out of gas in each node's words, and words no classifier knows
WORDINGS = [
    "{'code': -32603, 'message': 'EVM error OutOfGas'}",  # anvil
    "{'code': -32000, 'message': 'out of gas'}",  # geth, Erigon, Nethermind
    "{'code': -32015, 'message': 'VM execution error.'}",
    "{'code': -32000, 'message': 'something went wrong'}",
]


def address(index: int) -> str:
    """Return the test's address for a contract.

    :param index: its number (1-255).
    :return: 0x + 40 hex.
    """
    return "0x" + f"{index:02x}" * 20


class GasNode:  # pylint: disable=too-few-public-methods
    """Multicall2 ``tryBlockAndAggregate(false, ...)`` over contracts of known behaviour.

    :param kinds: contract address -> ``honest``, ``heavy`` (honest, over its share of
        gas), ``reverts``, ``burns``, ``bomb``.
    :param words: the node's error text when the ``eth_call`` fails as a whole.
    :param multicall_starves: False: Multicall2 itself never runs out of gas, so calls
        starved by a burner fail silently (``success`` false) instead of the whole call.
    """

    def __init__(
        self,
        kinds: Dict[str, str],
        words: str = WORDINGS[0],
        multicall_starves: bool = True,
    ) -> None:
        """Start at block 100.

        :param kinds: contract address -> behaviour (absent: honest).
        :param words: the error text.
        :param multicall_starves: whether Multicall2 runs out of gas itself.
        """
        self.kinds = kinds
        self.words = words
        self.multicall_starves = multicall_starves
        self.requests: List[Tuple[int, Optional[int]]] = []
        self.burnt = 0
        self.down = False

    def __call__(self, request: BatchRequest) -> BatchReply:
        """Run one batch with :func:`batch_gas`'s bound.

        :param request: the calls and block.
        :return: the block and each call's ``(success, data)``.
        :raises ChainReadError: the node is down, Multicall2 ran out of gas, or it could not
            copy a return.
        """
        calls, block = request
        self.requests.append((len(calls), block))
        if self.down:
            raise ChainReadError("connection refused; check the URL")
        left = batch_gas(len(calls))
        results: List[Tuple[bool, bytes]] = []
        for call in calls:
            if self.multicall_starves and left < LOOP_GAS:
                raise ChainReadError("eth_call failed", self.words)
            given = left * 63 // 64
            kind = self.kinds.get(call.target.lower(), "honest")
            if kind == "bomb":
                raise ChainReadError("eth_call failed", self.words)
            need = {"honest": HONEST_GAS, "heavy": HEAVY_GAS, "reverts": 3_000}
            used = need.get(kind, given)
            ok = kind in ("honest", "heavy") and given >= used
            used = min(used, given)
            self.burnt += used
            left -= used + (LOOP_GAS if self.multicall_starves else 0)
            results.append((ok, b"\x00" * 31 + b"\x07" if ok else b""))
        return (block or 100), results


def getters(targets: List[str]) -> List[Call]:
    """Return one ``maxDeliveryRate()`` per target.

    :param targets: the contracts.
    :return: the calls.
    """
    return [
        encode_call(target, "maxDeliveryRate()", (), (), ("uint256",))
        for target in targets
    ]


def run_blocking(node: GasNode, calls: List[Call]) -> BatchReply:
    """Run one batch through :func:`isolate_failing_calls`.

    :param node: the node.
    :param calls: the batch.
    :return: the joined reply.
    """
    return isolate_failing_calls(node, (ChainReadError,), PROBE)((calls, 100))


def mixed(*kinds: str, honest: int = 30) -> Dict[str, str]:
    """Return ``honest`` honest contracts with the given kinds among them, spread out.

    :param kinds: the strangers' behaviours.
    :param honest: how many honest contracts.
    :return: address -> kind, in call order.
    """
    order: Dict[str, str] = {}
    spots = {(i + 1) * honest // (len(kinds) + 1): kind for i, kind in enumerate(kinds)}
    index = 1
    for place in range(honest + len(kinds)):
        order[address(index)] = spots.get(place, "honest")
        index += 1
    return order


def assert_only_strangers_fail(kinds: Dict[str, str], reply: BatchReply) -> None:
    """Check every honest call succeeded and every stranger's failed.

    :param kinds: address -> kind, in call order.
    :param reply: the runner's reply.
    """
    assert reply[0] == 100
    assert [ok for ok, _ in reply[1]] == [k == "honest" for k in kinds.values()]


@pytest.mark.parametrize("words", WORDINGS)
@pytest.mark.parametrize("kind", ["burns", "bomb", "reverts"])
def test_one_stranger_among_honest_contracts_fails_alone(words: str, kind: str) -> None:
    """A burner, a return bomb or a revert, in any node's words: the others are read.

    :param words: the node's error text.
    :param kind: the stranger's behaviour.
    """
    kinds = mixed(kind)
    node = GasNode(kinds, words)
    reply = run_blocking(node, getters(list(kinds)))
    assert_only_strangers_fail(kinds, reply)
    assert all(block == 100 for _, block in node.requests)  # pinned throughout
    assert len(node.requests) <= 2 * math.ceil(math.log2(len(kinds))) + 3


@pytest.mark.parametrize("kind", ["burns", "bomb", "reverts"])
def test_a_stranger_alone_fails_alone(kind: str) -> None:
    """A batch of one stranger's call: its failure, no error, the block kept.

    :param kind: the stranger's behaviour.
    """
    node = GasNode({address(1): kind})
    assert run_blocking(node, getters([address(1)])) == (100, [(False, b"")])


def test_a_batch_of_one_honest_call_is_one_request() -> None:
    """Nothing failing costs nothing more."""
    node = GasNode({})
    reply = run_blocking(node, getters([address(1)]))
    assert reply[1][0][0] is True and node.requests == [(1, 100)]


@pytest.mark.parametrize(
    "kinds",
    [
        ("burns", "burns"),
        ("burns", "bomb"),
        ("bomb", "bomb", "burns", "reverts"),
    ],
)
def test_several_strangers_fail_each_alone(kinds: Tuple[str, ...]) -> None:
    """Two burners, a burner and a bomb, four strangers: every honest call is read.

    :param kinds: the strangers' behaviours.
    """
    order = mixed(*kinds)
    reply = run_blocking(GasNode(order), getters(list(order)))
    assert_only_strangers_fail(order, reply)


def test_adjacent_burners_first_and_last() -> None:
    """Burners at the batch's start, end and side by side."""
    order = {address(1): "burns", address(2): "burns"}
    order.update({address(i): "honest" for i in range(3, 20)})
    order.update({address(20): "burns"})
    reply = run_blocking(GasNode(order), getters(list(order)))
    assert_only_strangers_fail(order, reply)


@pytest.mark.parametrize("strangers", [("burns",), ("burns", "burns", "burns")])
def test_calls_a_burner_starves_silently_are_asked_again(
    strangers: Tuple[str, ...],
) -> None:
    """Multicall2 finishes, the calls after the burner failing: they are asked again.

    :param strangers: the strangers' behaviours.
    """
    order = mixed(*strangers, honest=200)
    node = GasNode(order, multicall_starves=False)
    reply = run_blocking(node, getters(list(order)))
    assert_only_strangers_fail(order, reply)
    assert len(node.requests) <= 1 + 2 * len(strangers)


@pytest.mark.parametrize("multicall_starves", [True, False])
def test_honest_getters_over_their_share_of_gas_are_still_read(
    multicall_starves: bool,
) -> None:
    """100 honest getters of 120,000 gas each, over the bound together: read, or said unread.

    When Multicall2 itself runs out, every part errs down to two calls: as dense as
    100 burners (adv29zx I1), so the part is left unread (said) within the batch's runs
    rather than asked a run per pair; when only the later calls fail, all are read.

    :param multicall_starves: whether the batch errs or its later calls fail.
    """
    order = {address(i): "heavy" for i in range(1, 101)}
    node = GasNode(order, multicall_starves=multicall_starves)
    unread: List[Call] = []
    runner = isolate_failing_calls(
        node, (ChainReadError,), PROBE, on_unread=lambda calls, _: unread.extend(calls)
    )
    _, reply = runner((getters(list(order)), 100))
    read = [ok for ok, _ in reply].count(True)
    assert read + len(unread) == len(order)
    assert not unread or multicall_starves
    assert len(node.requests) <= isolation_calls(len(order))


def test_each_request_is_bounded_in_gas() -> None:
    """A burner burns at most the batch's bound per request, the bound below 17 M."""
    order = mixed("burns", honest=1_000)
    node = GasNode(order)
    run_blocking(node, getters(list(order)))
    assert batch_gas(1) < batch_gas(2) <= MAX_BATCH_GAS < 17_000_000
    assert batch_gas(10_000) == MAX_BATCH_GAS
    assert node.burnt <= MAX_BATCH_GAS * 2 * (1 + math.ceil(math.log2(len(order))))


def test_a_node_that_is_down_is_not_read_as_failing_calls() -> None:
    """Every request failing: the error propagates after about log2(calls) requests."""
    order = mixed("burns", honest=60)
    node = GasNode(order)
    node.down = True
    with pytest.raises(ChainReadError, match="connection refused"):
        run_blocking(node, getters(list(order)))
    assert len(node.requests) <= math.ceil(math.log2(len(order))) + 2


def test_a_rate_limit_propagates_unsplit() -> None:
    """A rate limit is never answered with more requests."""
    order = mixed("bomb")
    node = GasNode(order, "{'code': -32005, 'message': 'rate limit exceeded'}")
    with pytest.raises(ChainReadError):
        run_blocking(node, getters(list(order)))
    assert len(node.requests) == 1


def test_the_probe_failing_alone_propagates() -> None:
    """Multicall2's own call failing is the node's error, not a contract's (none told)."""
    node = GasNode({MULTICALL: "bomb"})
    told: List[int] = []
    runner = isolate_failing_calls(
        node, (ChainReadError,), PROBE, lambda n, _: told.append(n)
    )
    with pytest.raises(ChainReadError):
        runner(([PROBE], 100))
    assert not told


def test_every_failure_is_told() -> None:
    """``on_failure`` hears each failing batch: split ones and the call failing alone."""
    order = mixed("bomb", honest=7)
    told: List[int] = []
    isolate_failing_calls(
        GasNode(order), (ChainReadError,), PROBE, lambda n, _: told.append(n)
    )((getters(list(order)), 100))
    assert told[0] == 8 and told[-1] == 1 and told == sorted(told, reverse=True)


def test_the_yielding_runner_answers_the_same() -> None:
    """The skill's cooperative runner: the same replies, the same requests."""
    order = mixed("burns", "bomb", "reverts")
    blocking, cooperative = GasNode(order), GasNode(order)

    def answer(request: BatchRequest) -> Generator[None, None, BatchReply]:
        yield
        return cooperative(request)

    def batch() -> Generator[BatchRequest, BatchReply, BatchReply]:
        return (yield getters(list(order)), None)

    expected = drive(batch(), isolate_failing_calls(blocking, (ChainReadError,), PROBE))
    running = drive_yielding(
        batch(), isolate_failing_calls_yielding(answer, (ChainReadError,), PROBE)
    )
    waits = 0
    got: Optional[BatchReply] = None
    try:
        while True:
            assert next(running) is None
            waits += 1
    except StopIteration as done:
        got = done.value
    assert got == expected and waits == len(cooperative.requests)
    assert cooperative.requests == blocking.requests
    assert_only_strangers_fail(order, expected)


@pytest.mark.parametrize("words", WORDINGS[:3])
def test_out_of_gas_in_every_nodes_words_is_read_as_too_large(words: str) -> None:
    """The registries' reads split on out of gas in anvil's, geth's and Nethermind's words.

    :param words: the node's error text.
    """
    out_of_gas = "gas" in words.lower()
    assert batch_too_large(ChainReadError("eth_call failed", words)) is out_of_gas


@pytest.mark.parametrize("burners", [0, 1, 2, 4])
def test_the_facts_of_every_honest_mech_are_read(burners: int) -> None:
    """``facts_reader`` through the runner: a burning mech's facts alone are unread.

    :param burners: how many of 6 mechs burn all gas in every getter.
    """
    mechs = [
        MechCreation(address(i), MECH_KIND_MARKETPLACE, i, FACTORY, 10 + i)
        for i in range(1, 7)
    ]
    kinds = {mech.address: "burns" for mech in mechs[1 : 1 + burners]}
    node = GasNode(kinds)
    _, facts = drive(
        facts_reader(MARKET, MULTICALL, mechs, 40),
        isolate_failing_calls(node, (ChainReadError,), PROBE),
    )
    for fact in facts:
        own = dict(fact.unread)
        if fact.address in kinds:
            assert own.get("max_delivery_rate") == "call_reverted"
        else:
            assert fact.max_delivery_rate == 7 and "max_delivery_rate" not in own
