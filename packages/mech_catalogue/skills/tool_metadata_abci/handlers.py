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

All are abstract_round_abci's, except :class:`HttpHandler`, which also answers the
catalogue API (``GET /tools``, ``/tools/<name>``, ``/mechs``, ``/healthcheck``; see
``domain/http_api/routes.py``) for requests arriving through the ``valory/http_server``
connection. Responses to the skill's own gateway requests go to abstract_round_abci's
handler as usual.

Requests come from anyone who can reach the port, and an exception escaping a handler
stops the agent (the skill's ``stop_and_exit`` policy), so :meth:`HttpHandler.handle` is
a boundary: parsing is total (``domain/http_api/request.py``), and anything else that raises
while answering is logged and answered ``500 internal_error``, never re-raised.
"""

import time
from typing import Optional, Tuple, cast

from packages.mech_catalogue.skills.tool_metadata_abci.dialogues import (
    HttpDialogue,
    HttpDialogues,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.http_api.request import (
    INTERNAL_ERROR,
    HttpResult,
    Request,
    error_result,
    parse_request,
    quoted,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.http_api.routes import (
    serve,
)
from packages.valory.protocols.http.message import HttpMessage
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

ABCIHandler = BaseABCIRoundHandler
SigningHandler = BaseSigningHandler
LedgerApiHandler = BaseLedgerApiHandler
ContractApiHandler = BaseContractApiHandler
TendermintHandler = BaseTendermintHandler
IpfsHandler = BaseIpfsHandler


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
