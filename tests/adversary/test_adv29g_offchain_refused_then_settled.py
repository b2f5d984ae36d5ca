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

"""A request the mech refused and then settled: its paid answer is never returned (adv29g).

Severity: HIGH (a paid answer lost; the error then advises moving the entry away, after
which "the call will be ... paid when no request of it is found"), and MEDIUM with it:
under ``--max-spend`` every later paid call of the state folder is refused.

On the devnet (anvil with the real MechMarketplace bytecode, kubo, the stand-in
endpoint of :mod:`scripts.devnet.offchain_responder`) with the MCP SDK's client
launching ``mech-catalogue mcp --offchain only --max-spend 3P`` over stdio, one agent.
The mech's settlement is made by the stand-in's own settling code, called when the test
says (a mech settling a request it refused).

A mech holds every request posted to it signed, whatever it answered, and may settle
it: adv29c made such a request count against the cap, and ``_offchain_again`` looks
every request of a call up on chain first ("the one settled is the answer returned").
When it finds the call's *current* request settled while its entry says the endpoint
refused it, it marks the entry ``sent`` and records it, but leaves
``extra.offchain.accepted`` false (``settle_on`` sets it only for an earlier attempt).
The journal's strict reading (``journal/entry.py``) then refuses its own entry: "it is
sent but names no transaction". So:

- call A: the endpoint answers 402 (or 200 with another request id, or its 200 comes
  after the post's 10 s deadline: no hostility needed); the mech settles A's signed
  request anyway: the prepaid balance is charged one price;
- call A again (same arguments): ``isError`` "request 0x... to mech 0x... (... wei,
  tx ) is paid, but its answer could not be read now: the call journal entry ... is
  not one this server wrote (it is sent but names no transaction); ... Check it, then
  move it away: the call will then be looked up on chain and resumed, or paid when no
  request of it is found": the answer delivered on chain is never returned;
- call B (other arguments): refused, "the native spending within --spend-window cannot
  be counted: journal entry ... is not one this server wrote": nothing more can be paid
  until a person edits the state folder.

Following that advice pays the call twice (the second test): the lookup finds no
on-chain request, so a new one is signed, and settled.

Expected: a refused request found settled is the call's answer like any other (its
entry readable, written as one this server writes: accepted, or settled), A's call
returns the mech's delivered answer without paying again, and B is paid normally.
"""

from pathlib import Path

import pytest

from scripts.devnet import Devnet
from scripts.devnet.offchain_responder import OffchainResponder
from tests.devnet.test_mcp_offchain import (
    calls,
    declare_url,
    native_mech,
    prepaid,
    prepay,
)


def _text(result: object) -> str:
    return str(result.content[0].text)  # type: ignore[attr-defined]


@pytest.mark.parametrize("answer", ["always_402", "wrong_id", "slow"])
def test_a_refused_request_the_mech_settles_is_the_call_s_answer(
    chain_snapshot: Devnet, tmp_path: Path, answer: str
) -> None:
    """A refused then settled: calling A again returns its answer; B is paid.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    :param answer: how the endpoint refused A (a 402 it did not mean, 200 with another
        request id, or its 200 after the post's 10 s deadline: an honest mech under
        load).
    """
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    options = ("--mech", mech, "--offchain", "only", "--timeout", "10")
    capped = (*options, "--max-spend", str(3 * price))
    with OffchainResponder(devnet.info, [mech], behaviour=answer) as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, 3 * price)
        before = prepaid(devnet)
        (a,) = calls(devnet, tmp_path, 1, *capped, prompt="A: refused, then settled")
        assert a.is_error and len(endpoint.posts) == 1, _text(a)
        form = endpoint.posts[0]
        # the mech settles the request it refused (the stand-in's own settlement)
        # pylint: disable-next=protected-access
        settled_mech, sender, rid, _ = endpoint._checked(form)
        # pylint: disable-next=protected-access
        endpoint._settle(settled_mech, sender, rid, form)
        assert endpoint.settled and before - prepaid(devnet) == price, endpoint.errors
        (again,) = calls(
            devnet, tmp_path, 1, *capped, prompt="A: refused, then settled"
        )
        endpoint.behaviour = "honest"
        (b,) = calls(devnet, tmp_path, 1, *capped, prompt="B: another call")
    observed = (
        f"A again: {_text(again)[:400]!r}; B: {_text(b)[:300]!r}; charged "
        f"{before - prepaid(devnet)} (price {price}); posts {len(endpoint.posts)}"
    )
    # observed on adv29f: A again "... is paid, but its answer could not be read now:
    # the call journal entry ... is not one this server wrote (it is sent but names no
    # transaction) ..."; B "... spending within --spend-window cannot be counted ..."
    assert not again.is_error and "devnet stand-in" in _text(again), observed
    assert not b.is_error, observed
    assert before - prepaid(devnet) == 2 * price, observed  # A once, B once


def test_following_the_error_s_advice_does_not_pay_the_call_twice(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """A refused then settled; the error says move the entry away; done, A is paid again.

    Observed on adv29f: the second call's error advises "Check it, then move it away:
    the call will then be looked up on chain and resumed, or paid when no request of it
    is found"; an off-chain request is not found by that lookup, so the call signs a
    new request and it is settled: two prices for one call. Expected: whatever the
    error advises, the call is charged once (here: the settled request's answer).

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    options = ("--mech", mech, "--offchain", "only", "--timeout", "10")
    with OffchainResponder(devnet.info, [mech], behaviour="always_402") as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, 3 * price)
        before = prepaid(devnet)
        calls(devnet, tmp_path, 1, *options, prompt="A")
        form = endpoint.posts[0]
        # pylint: disable-next=protected-access
        settled_mech, sender, rid, _ = endpoint._checked(form)
        # pylint: disable-next=protected-access
        endpoint._settle(settled_mech, sender, rid, form)
        (again,) = calls(devnet, tmp_path, 1, *options, prompt="A")
        advised = again.is_error and "move it away" in _text(again)
        if advised:  # as the error says: the entry moved out of the journal
            (path,) = (tmp_path / "calls").glob("*.json")
            path.rename(tmp_path / path.name)
        endpoint.behaviour = "honest"
        (last,) = calls(devnet, tmp_path, 1, *options, prompt="A")
    charged = before - prepaid(devnet)
    observed = (
        f"advised to move the entry away: {advised}; last: {_text(last)[:200]!r}; "
        f"charged {charged} for one call (price {price}); posts {len(endpoint.posts)}"
    )
    # observed on adv29f: advised True; charged two prices, two posts
    assert not last.is_error, observed
    assert charged == price, observed
