"""Handlers of the tool metadata skill.

All are abstract_round_abci's, except :class:`HttpHandler`, which also answers the
catalogue API (``GET /tools``, ``/tools/<name>``, ``/mechs``, ``/healthcheck``; see
``domain/http_api.py``) for requests arriving through the ``valory/http_server``
connection. Responses to the skill's own gateway requests go to abstract_round_abci's
handler as usual.
"""

import time
from typing import Optional, cast

from packages.mech_catalogue.skills.tool_metadata_abci.dialogues import (
    HttpDialogue,
    HttpDialogues,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.http_api import (
    HttpResult,
    route,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.published import (
    SHARED_STATE_KEY,
    PublishedCatalogue,
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

JSON_HEADERS = "Content-Type: application/json\n"


class HttpHandler(BaseHttpHandler):
    """HTTP responses to the skill's requests, and the read-only catalogue API."""

    def handle(self, message: HttpMessage) -> None:  # type: ignore[override]
        """Serve catalogue API requests; pass everything else to abstract_round_abci.

        :param message: the HTTP message.
        """
        if message.performative != HttpMessage.Performative.REQUEST:
            super().handle(message)
            return
        dialogues = cast(HttpDialogues, self.context.http_dialogues)
        dialogue = cast(Optional[HttpDialogue], dialogues.update(message))
        if dialogue is None:
            self.context.logger.warning(
                f"dropping HTTP request that fits no dialogue: {message.url}"
            )
            return
        published = cast(
            Optional[PublishedCatalogue],
            self.context.shared_state.get(SHARED_STATE_KEY),
        )
        params = self.context.params
        result = route(
            message.method,
            message.url,
            published,
            time.time(),
            params.tools_page_size,
            params.catalogue_max_age_seconds,
        )
        if result is None:
            result = HttpResult(
                404,
                {
                    "error": {
                        "code": "unknown_path",
                        "message": f"{message.url} is not served; try GET /tools",
                    }
                },
            )
        response = dialogue.reply(
            performative=HttpMessage.Performative.RESPONSE,
            target_message=message,
            version=message.version,
            status_code=result.status_code,
            status_text=result.status_text,
            headers=JSON_HEADERS,
            body=result.body_bytes(),
        )
        self.context.outbox.put_message(message=response)
