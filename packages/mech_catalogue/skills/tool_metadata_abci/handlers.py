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

"""Handlers of the tool metadata skill.

All are abstract_round_abci's, except two. :class:`HttpHandler` also answers the
catalogue API (``GET /tools``, ``/tools/<name>``, ``/mechs``, ``/healthcheck``; see
``mech_catalogue_core/http_api/routes.py``) for requests arriving through the agent's
``mech_catalogue/http_server`` connection (the request target as sent); responses to the skill's own gateway requests go to abstract_round_abci's
handler as usual. :class:`ABCIHandler` follows a Tendermint chain whose heights restarted.

Requests come from anyone who can reach the port, and an exception escaping a handler
stops the agent (the skill's ``stop_and_exit`` policy), so :meth:`HttpHandler.handle` is
a boundary: parsing is total (``mech_catalogue_core/http_api/request.py``), and anything else that raises
while answering is logged and answered ``500 internal_error``, never re-raised.
"""

import time
from typing import Optional, Tuple, cast

from mech_catalogue_core.http_api.request import (
    INTERNAL_ERROR,
    HttpResult,
    Request,
    error_result,
    parse_request,
    quoted,
)
from mech_catalogue_core.http_api.routes import (
    serve,
)

from packages.mech_catalogue.skills.tool_metadata_abci.dialogues import (
    HttpDialogue,
    HttpDialogues,
)
from packages.valory.protocols.abci import AbciMessage
from packages.valory.protocols.http.message import HttpMessage
from packages.valory.skills.abstract_round_abci.base import RoundSequence
from packages.valory.skills.abstract_round_abci.dialogues import AbciDialogue
from packages.valory.skills.abstract_round_abci.handlers import (
    ABCIRoundHandler as BaseABCIRoundHandler,
)
from packages.valory.skills.abstract_round_abci.handlers import (
    ContractApiHandler as BaseContractApiHandler,
)
from packages.valory.skills.abstract_round_abci.handlers import (
    HttpHandler as BaseHttpHandler,
)
from packages.valory.skills.abstract_round_abci.handlers import (
    IpfsHandler as BaseIpfsHandler,
)
from packages.valory.skills.abstract_round_abci.handlers import (
    LedgerApiHandler as BaseLedgerApiHandler,
)
from packages.valory.skills.abstract_round_abci.handlers import (
    SigningHandler as BaseSigningHandler,
)
from packages.valory.skills.abstract_round_abci.handlers import (
    TendermintHandler as BaseTendermintHandler,
)

SigningHandler = BaseSigningHandler
LedgerApiHandler = BaseLedgerApiHandler
ContractApiHandler = BaseContractApiHandler
TendermintHandler = BaseTendermintHandler
IpfsHandler = BaseIpfsHandler


class ABCIHandler(BaseABCIRoundHandler):
    """abstract_round_abci's ABCI handler, following a chain whose heights restarted.

    abstract_round_abci takes a block only at the local height + 1 and otherwise raises
    ``AddBlockError`` from ``commit``, which stops the agent. The abci connection's mock
    Tendermint (single-agent runs; ``valory/abci`` ``connection.py``) restarts its heights at
    1 on ``/gentle_reset`` and ``/hard_reset`` without an ``init_chain``, and
    abstract_round_abci sends ``/gentle_reset`` whenever no block arrived for
    ``BLOCKS_STALL_TOLERANCE`` (60 s), so any pause that long (a loaded machine, a suspended
    VM, ``SIGSTOP``) stopped the agent. Here a block at another height re-bases the local
    blockchain at it, as ``init_chain`` would, with a warning; a block at height 1 while the
    local blockchain waits for ``init_chain`` after a hard reset starts that new chain.
    """

    def begin_block(self, message: AbciMessage, dialogue: AbciDialogue) -> AbciMessage:
        """Re-base the local blockchain if Tendermint's heights restarted, then begin the block.

        :param message: the ``REQUEST_BEGIN_BLOCK`` message; ``header.height`` is read.
        :param dialogue: its dialogue.
        :return: abstract_round_abci's ``RESPONSE_BEGIN_BLOCK``.
        """
        # the skill's own SharedState: importing abstract_round_abci's here would give the
        # skill loader two classes named SharedState
        round_sequence: RoundSequence = self.context.state.round_sequence
        blockchain = round_sequence.blockchain
        height = message.header.height
        expected = blockchain.height + 1
        if blockchain.is_init and height != expected:
            self.context.logger.warning(
                f"Tendermint sent block {height} where block {expected} was due (its "
                "heights restarted without init_chain, as the mock Tendermint's resets do); "
                f"the local blockchain now continues from block {height}"
            )
            round_sequence.init_chain(height)
        elif not blockchain.is_init and height == 1:
            self.context.logger.info(
                "Tendermint's chain restarted at block 1 without init_chain; "
                "the local blockchain starts there"
            )
            round_sequence.init_chain(height)
        return super().begin_block(message, dialogue)


class HttpHandler(BaseHttpHandler):
    """HTTP responses to the skill's requests, and the read-only catalogue API."""

    #: fixed paths served besides the catalogue API's (see :meth:`answer_request`)
    extra_paths: Tuple[str, ...] = ()

    def handle(self, message: HttpMessage) -> None:  # type: ignore[override]
        """Serve catalogue API requests; pass everything else to abstract_round_abci.

        Never raises on a request: whatever fails is logged (and answered 500 when a
        dialogue exists to answer on).

        :param message: the HTTP message.
        """
        if message.performative != HttpMessage.Performative.REQUEST:
            super().handle(message)
            return
        try:
            self._serve(message)
        except Exception as exc:  # pylint: disable=broad-except
            self.context.logger.error(
                f"HTTP request {quoted(str(message.url))} could not be answered: {exc!r}"
            )

    def _serve(self, message: HttpMessage) -> None:
        dialogues = cast(HttpDialogues, self.context.http_dialogues)
        dialogue = cast(Optional[HttpDialogue], dialogues.update(message))
        if dialogue is None:
            self.context.logger.warning(
                f"dropping HTTP request that fits no dialogue: {quoted(str(message.url))}"
            )
            return
        try:
            result = self.answer(message)
        except Exception as exc:  # pylint: disable=broad-except
            self.context.logger.exception(
                f"{INTERNAL_ERROR}: answering {quoted(str(message.method))} "
                f"{quoted(str(message.url))} raised {exc!r}; answered 500"
            )
            result = error_result(
                INTERNAL_ERROR,
                "the agent failed to answer this request; it was logged, and the "
                "agent keeps running; try again later or report it",
            )
        response = dialogue.reply(
            performative=HttpMessage.Performative.RESPONSE,
            target_message=message,
            version=message.version,
            status_code=result.status_code,
            status_text=result.status_text,
            headers=result.headers,
            body=result.body,
        )
        self.context.outbox.put_message(message=response)

    def answer(self, message: HttpMessage) -> HttpResult:
        """Answer one request.

        :param message: the HTTP request.
        :return: the response (4xx for anything :func:`parse_request` refuses).
        """
        request = parse_request(
            message.method, message.url, message.body, self.extra_paths
        )
        if isinstance(request, HttpResult):
            return request
        return self.answer_request(request)

    def answer_request(self, request: Request) -> HttpResult:
        """Answer a parsed request from the FSM's agreed catalogue (``context.state``).

        :param request: the parsed request.
        :return: the response.
        """
        params = self.context.params
        return serve(
            request,
            self.context.state.catalogue_view(),
            time.time(),
            params.tools_page_size,
            params.catalogue_max_age_seconds,
        )
