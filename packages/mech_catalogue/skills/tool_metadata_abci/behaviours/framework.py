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

"""Every framework call the behaviours of both skills make for I/O, in one place.

The behaviours of ``tool_metadata_abci`` and ``manifest_publish_abci`` reach the
connections (ledger, IPFS, HTTP) only through :class:`FrameworkCalls`, so an
open-autonomy upgrade is checked here and nowhere else. Public ``BaseBehaviour`` APIs are
used where open-autonomy has them (``get_contract_api_response``, ``send_to_ipfs``,
``get_from_ipfs``, ``wait_for_condition``). Two private ones remain, both for the fetch
round's sliding window of concurrent requests, which the public API (one request, then
wait for its answer) cannot express: ``_build_ipfs_get_file_req`` (a GET_FILES message
without waiting for it) and ``_get_request_nonce_from_dialogue`` (to route each answer to
its own callback). The consensus calls (``send_a2a_transaction``,
``wait_until_round_end``, ``sleep``) are the standard public API and stay in the
behaviours.
"""

from abc import ABC
from typing import Any, Callable, Dict, Generator, Optional, Tuple, cast

from aea.protocols.base import Message
from aea.protocols.dialogue.base import Dialogue

from packages.mech_catalogue.connections.capped_http_client.connection import (
    PUBLIC_ID as CAPPED_HTTP_CLIENT_ID,
)
from packages.valory.protocols.contract_api import ContractApiMessage
from packages.valory.protocols.http import HttpMessage
from packages.valory.skills.abstract_round_abci.behaviour_utils import (
    BaseBehaviour,
    TimeoutException,
)
from packages.valory.skills.abstract_round_abci.models import Requests

#: the lines ``traceback.format_exception`` writes around the exceptions' own texts
TRACEBACK_HEADER = "Traceback (most recent call last):"
CHAINING_SENTENCES = frozenset(
    {
        "The above exception was the direct cause of the following exception:",
        "During handling of the above exception, another exception occurred:",
    }
)

#: a reply callback: (message, current behaviour) -> None
ReplyCallback = Callable[[Any, Any], None]


def exception_text(message: str) -> str:
    """Reduce a connection's error message to the texts of the exceptions it reports.

    The ledger connection answers ERROR with ``aea.exceptions.parse_exception``: the whole
    traceback, its source lines included (open-aea ``aea/exceptions.py``). What the RPC
    said is in the exceptions' own texts, and only those are matched against RPC
    refusals (``mech_catalogue_core/chain/rpc_limits.py``): a source line of web3 must not read as one.

    :param message: the ERROR message's text.
    :return: the exception lines (``Type: text``, a chain's causes first), without the
        frames, their source lines and the chaining sentences; ``message`` unchanged
        when it holds no traceback.
    """
    lines = message.splitlines()
    if not any(line.startswith(TRACEBACK_HEADER) for line in lines):
        return message
    kept = [
        line
        for line in lines
        if line.strip()
        and not line.startswith((TRACEBACK_HEADER, " "))
        and line not in CHAINING_SENTENCES
    ]
    return "\n".join(kept) or message


def _as_text(text: str) -> str:
    """Load an IPFS file as the text it is (no JSON decoding)."""
    return text


class FrameworkCalls(BaseBehaviour, ABC):  # pylint: disable=too-many-ancestors
    """The framework calls of the behaviours: contract state, IPFS, gateway, waiting."""

    def contract_state(
        self,
        contract_address: str,
        contract_id: str,
        contract_callable: str,
        **kwargs: Any,
    ) -> Generator[None, None, Tuple[Optional[Dict[str, Any]], str]]:
        """Call a contract's read-only callable through the ledger connection (GET_STATE).

        :param contract_address: the contract (or the Safe) address.
        :param contract_id: the contract package's public id, as a string.
        :param contract_callable: the callable of that package.
        :param kwargs: its keyword arguments.
        :yield: while waiting for the ledger connection.
        :return: ``(state body, "")``, or ``(None, why)`` when the connection answered
            anything but STATE (``why``: :func:`exception_text` of its message).
        """
        response = yield from self.get_contract_api_response(
            performative=ContractApiMessage.Performative.GET_STATE,
            contract_address=contract_address,
            contract_id=contract_id,
            contract_callable=contract_callable,
            **kwargs,
        )
        if response.performative != ContractApiMessage.Performative.STATE:
            # an unset optional field raises when read (getattr's default never applies)
            if response.is_set("message"):
                return None, exception_text(str(response.message))
            return None, f"the ledger connection answered {response.performative.value}"
        return dict(response.state.body), ""

    def store_text_on_ipfs(
        self, path: str, text: str, timeout: float
    ) -> Generator[None, None, Optional[str]]:
        """Store one text file through the ``valory/ipfs`` connection (``send_to_ipfs``).

        :param path: the local path the connection reads the file from (the connection
            adds it and answers with its directory's hash).
        :param text: the file's exact content (stored as is, not serialised again).
        :param timeout: seconds to wait for the connection.
        :yield: while waiting for the connection.
        :return: the hash the connection answered, None on failure or timeout (logged).
        """
        try:
            return (
                yield from self.send_to_ipfs(
                    path,
                    text,
                    custom_storer=lambda filename, obj, **_: {filename: obj},  # type: ignore[arg-type,misc]  # the framework annotates it returning None
                    timeout=timeout,
                )
            )
        except TimeoutException:
            self.context.logger.error(
                f"the IPFS connection did not answer within {timeout}s storing {path}"
            )
            return None

    def read_text_from_ipfs(
        self, cid: str, timeout: float
    ) -> Generator[None, None, Optional[str]]:
        """Read one file by its CID through the ``valory/ipfs`` connection (``get_from_ipfs``).

        The connection has read the whole file before it answers (unbounded, see
        docs/skill-contract.md); callers cap what they keep.

        :param cid: the file's CID.
        :param timeout: seconds to wait for the connection.
        :yield: while waiting for the connection.
        :return: the file's text, None when the node did not serve exactly one file for
            the CID, or on timeout (logged).
        """
        try:
            text = yield from self.get_from_ipfs(
                cid, custom_loader=_as_text, timeout=timeout
            )
        except TimeoutException:
            self.context.logger.error(
                f"the IPFS connection did not answer within {timeout}s reading {cid}"
            )
            return None
        return text if isinstance(text, str) else None

    def request_ipfs_file(
        self, cid: str, timeout: float, callback: ReplyCallback
    ) -> None:
        """Send a GET_FILES request without waiting; the answer goes to ``callback``.

        :param cid: the CID.
        :param timeout: seconds the connection may take.
        :param callback: receives the IpfsMessage answer.
        """
        message, dialogue = self._build_ipfs_get_file_req(cid, timeout)
        self.send_with_callback(message, dialogue, callback)

    def request_gateway(self, url: str, headers: str, callback: ReplyCallback) -> None:
        """Send a GET through ``mech_catalogue/capped_http_client`` without waiting.

        :param url: the URL.
        :param headers: the request headers, CRLF-separated.
        :param callback: receives the HttpMessage answer.
        """
        http_dialogues = self.context.http_dialogues
        message, dialogue = http_dialogues.create(
            counterparty=str(CAPPED_HTTP_CLIENT_ID),
            performative=HttpMessage.Performative.REQUEST,
            method="GET",
            url=url,
            headers=headers,
            version="",
            body=b"",
        )
        self.send_with_callback(message, dialogue, callback)

    def send_with_callback(
        self, message: Message, dialogue: Dialogue, callback: ReplyCallback
    ) -> None:
        """Put a request in the outbox and route its answer to ``callback``.

        :param message: the request.
        :param dialogue: its dialogue.
        :param callback: receives the answer.
        """
        nonce = self._get_request_nonce_from_dialogue(dialogue)
        cast(Requests, self.context.requests).request_id_to_callback[nonce] = callback
        self.context.outbox.put_message(message=message)

    def wait_until(
        self, condition: Callable[[], bool], timeout: float
    ) -> Generator[None, None, bool]:
        """Yield until ``condition()`` holds or ``timeout`` seconds passed.

        :param condition: the condition.
        :param timeout: seconds.
        :yield: while waiting.
        :return: True when the condition holds, False on timeout.
        """
        try:
            yield from self.wait_for_condition(condition, timeout)
        except TimeoutException:
            return False
        return True
