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

"""FrameworkCalls: the gateway GET as the connection gets it; IPFS calls nobody answers.

Also the ledger connection's ERROR text reduced to what the RPC said (``exception_text``).

Each call is driven as the behaviour's loop drives it (one step per ``act``), against the
skill's real context and the framework's real ``wait_for_message``; nothing answers the
request, as when the connection is down. The timeout given must reach the framework: the
call then ends with None and an error naming what was not answered, instead of the
behaviour waiting for ever.
"""

from typing import Any, Generator, List, cast
from unittest import mock

import pytest
from aea.exceptions import parse_exception
from mech_catalogue_core.chain.rpc_limits import (
    log_range_too_wide,
)

from packages.mech_catalogue.connections.capped_http_client.connection import (
    PUBLIC_ID as CAPPED_HTTP_CLIENT_ID,
)
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.framework import (
    FrameworkCalls,
    exception_text,
)
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.registry_snapshot import (
    RegistrySnapshotBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    GATEWAY,
    IpfsMessage,
    ToolMetadataBehaviourCase,
)
from packages.valory.protocols.http import HttpMessage

CID = "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi"


def run_to_end(generator: Generator[Any, Any, Any], steps: int) -> Any:
    """Step a behaviour generator as its ``act`` would; fail if it is still waiting.

    :param generator: the generator.
    :param steps: the most steps to take.
    :return: its return value.
    :raises Exception: pytest's failure, when it has not ended after ``steps``.
    """
    try:
        for _ in range(steps):
            next(generator)
    except StopIteration as stop:
        return stop.value
    raise pytest.fail.Exception(f"still waiting after {steps} steps")


class FrameworkCase(ToolMetadataBehaviourCase):
    """Enter a behaviour to call its FrameworkCalls directly."""

    def snapshot_behaviour(self) -> FrameworkCalls:
        """Enter the snapshot behaviour (any behaviour has FrameworkCalls) without acting.

        :return: the behaviour.
        """
        self.go_to(RegistrySnapshotBehaviour, {})
        return cast(FrameworkCalls, self.current())


class TestUnansweredIpfs(FrameworkCase):
    """read_text_from_ipfs and store_text_on_ipfs against a silent connection."""

    def test_a_read_times_out_with_none_and_names_the_cid(self) -> None:
        """A GET_FILES for the CID goes out; after the timeout: None, one error line."""
        behaviour = self.snapshot_behaviour()
        logger = self.skill.skill_context.logger
        with mock.patch.object(logger, "error") as error:
            text = run_to_end(behaviour.read_text_from_ipfs(CID, 0.0), 5)
        assert text is None
        request = self.outbox_message(IpfsMessage)
        assert request.performative == IpfsMessage.Performative.GET_FILES
        assert request.ipfs_hash == CID
        error.assert_called_once_with(
            f"the IPFS connection did not answer within 0.0s reading {CID}"
        )

    def test_a_store_times_out_with_none_and_names_the_path(self) -> None:
        """A STORE_FILES goes out; after the timeout: None, one error line with the path."""
        behaviour = self.snapshot_behaviour()
        logger = self.skill.skill_context.logger
        with mock.patch.object(logger, "error") as error:
            digest = run_to_end(
                behaviour.store_text_on_ipfs("manifest.json", '{"a": 1}', 0.0), 5
            )
        assert digest is None
        request = self.outbox_message(IpfsMessage)
        assert request.performative == IpfsMessage.Performative.STORE_FILES
        assert request.files == {"manifest.json": '{"a": 1}'}
        error.assert_called_once_with(
            "the IPFS connection did not answer within 0.0s storing manifest.json"
        )


class TestGatewayRequest(FrameworkCase):
    """request_gateway: the message the capped_http_client connection receives."""

    def test_a_bodyless_get_whose_answer_reaches_its_callback(self) -> None:
        """A GET with the URL and headers given, no body, the protocol's empty version.

        The connection sends a non-empty body as request data, so it must be empty. The
        answer to the request goes to the callback given, with its status and body.
        """
        behaviour = self.snapshot_behaviour()
        answers: List[Any] = []
        url = f"{GATEWAY}/ipfs/{CID}"
        headers = "Accept: application/vnd.ipld.raw\r\nRange: bytes=0-1023"
        behaviour.request_gateway(
            url, headers, lambda message, _current: answers.append(message)
        )
        request = self.outbox_message(HttpMessage)
        assert (
            request.performative,
            request.to,
            request.method,
            request.url,
            request.headers,
            request.body,
            request.version,
        ) == (
            HttpMessage.Performative.REQUEST,
            str(CAPPED_HTTP_CLIENT_ID),
            "GET",
            url,
            headers,
            b"",
            "",
        )
        assert not answers
        self.deliver_gateway_response(request, 206, "", b"\x0a\x02")
        assert [(a.status_code, a.body) for a in answers] == [(206, b"\x0a\x02")]


class TestWaitUntil(FrameworkCase):
    """wait_until: True once the condition holds, False when the timeout passed first."""

    def test_true_when_the_condition_holds_false_on_timeout(self) -> None:
        """A condition that turns true on the third check; one that never does."""
        behaviour = self.snapshot_behaviour()
        checks: List[int] = []

        def third_time() -> bool:
            checks.append(1)
            return len(checks) >= 3

        assert run_to_end(behaviour.wait_until(third_time, 60.0), 10) is True
        assert len(checks) == 3
        assert run_to_end(behaviour.wait_until(lambda: False, 0.0), 10) is False


def _raise_the_rpc_error(cause: str) -> None:
    """Raise what the ledger API raises for an RPC error.

    :param cause: the text of the RPC's error.
    :raises ValueError: always.
    """
    raise ValueError(cause)  # a source line naming a "range" that is "too large"


def _raise_while_handling(cause: str, wrapper: str) -> None:
    """Raise an exception while handling the RPC's.

    :param cause: the text of the RPC's error.
    :param wrapper: the text of the exception raised while handling it.
    :raises RuntimeError: always, from the RPC's ``ValueError``.
    """
    try:
        _raise_the_rpc_error(cause)
    except ValueError as exc:
        raise RuntimeError(wrapper) from exc


def _ledger_error(cause: str, wrapper: str = "") -> str:
    """The ERROR text the ledger connection sends for what its ledger API raised.

    :param cause: the text of the RPC's error.
    :param wrapper: when given, the text of an exception raised while handling it.
    :return: ``aea.exceptions.parse_exception`` of it, the dispatcher's own formatting.
    """
    try:
        if wrapper:
            _raise_while_handling(cause, wrapper)
        else:
            _raise_the_rpc_error(cause)
    except (ValueError, RuntimeError) as exc:
        return parse_exception(exc)
    return ""


def test_a_ledger_traceback_is_reduced_to_what_the_rpc_said() -> None:
    """Frames and source lines go; the exception's own text stays, so only it is classified."""
    message = _ledger_error("{'code': -32000, 'message': 'connection refused'}")
    assert "_raise_the_rpc_error" in message and "Traceback" in message
    reduced = exception_text(message)
    assert reduced == "ValueError: {'code': -32000, 'message': 'connection refused'}"
    assert log_range_too_wide(RuntimeError(message))  # the source line would misread
    assert not log_range_too_wide(RuntimeError(reduced))


def test_a_chained_traceback_keeps_every_exception_text_cause_first() -> None:
    """An exception raised while handling the RPC's keeps both texts, without the glue."""
    reduced = exception_text(_ledger_error("range 90 exceeds limit of 10", "wrapped"))
    assert reduced == "ValueError: range 90 exceeds limit of 10\nRuntimeError: wrapped"
    assert log_range_too_wide(RuntimeError(reduced))


@pytest.mark.parametrize(
    "message", ["", "the ledger connection answered error", "line one\n  indented"]
)
def test_a_message_without_a_traceback_is_kept_as_is(message: str) -> None:
    """What is not a traceback is not touched."""
    assert exception_text(message) == message
