"""Handlers of the chained skill: the tool metadata skill's, plus ``GET /synchronized_data``.

``GET /synchronized_data`` shows, read-only, the keys of the ABCI ``SynchronizedData``
that other apps chained after tool metadata read (mech-interact and trader read
``mech_tools`` and ``mechs_info``)::

    {"period_count": int, "participants": int, "catalogue_digest": str,
     "registry_snapshot_digest": str, "mech_tools": [str, ...] (sorted),
     "mechs_info": [MechInfo-compatible dict, ...]}

Every other request goes to the tool metadata skill's handler (``/tools``, ``/tools/<name>``,
``/mechs``, ``/healthcheck``).
"""

import json
from typing import Any, Dict, Optional, cast
from urllib.parse import urlparse

from packages.mech_catalogue.skills.tool_metadata_abci.dialogues import (
    HttpDialogue,
    HttpDialogues,
)
from packages.mech_catalogue.skills.tool_metadata_abci.handlers import (
    ABCIHandler as ToolMetadataABCIHandler,
)
from packages.mech_catalogue.skills.tool_metadata_abci.handlers import (
    ContractApiHandler as ToolMetadataContractApiHandler,
)
from packages.mech_catalogue.skills.tool_metadata_abci.handlers import (
    HttpHandler as ToolMetadataHttpHandler,
)
from packages.mech_catalogue.skills.tool_metadata_abci.handlers import (
    IpfsHandler as ToolMetadataIpfsHandler,
)
from packages.mech_catalogue.skills.tool_metadata_abci.handlers import (
    LedgerApiHandler as ToolMetadataLedgerApiHandler,
)
from packages.mech_catalogue.skills.tool_metadata_abci.handlers import (
    SigningHandler as ToolMetadataSigningHandler,
)
from packages.mech_catalogue.skills.tool_metadata_abci.handlers import (
    TendermintHandler as ToolMetadataTendermintHandler,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    SynchronizedData,
)
from packages.valory.protocols.http.message import HttpMessage

SYNCHRONIZED_DATA_PATH = "/synchronized_data"
JSON_HEADERS = "Content-Type: application/json\n"

ABCIHandler = ToolMetadataABCIHandler
SigningHandler = ToolMetadataSigningHandler
LedgerApiHandler = ToolMetadataLedgerApiHandler
ContractApiHandler = ToolMetadataContractApiHandler
TendermintHandler = ToolMetadataTendermintHandler
IpfsHandler = ToolMetadataIpfsHandler


def synchronized_data_view(data: SynchronizedData) -> Dict[str, Any]:
    """The chained apps' view of the synchronized data.

    :param data: the latest synchronized data.
    :return: the JSON document served at ``GET /synchronized_data`` (see the module doc).
    """
    return {
        "period_count": data.period_count,
        "participants": len(data.db.get("participants", None) or ()),
        "catalogue_digest": data.catalogue_digest,
        "registry_snapshot_digest": data.registry_snapshot_digest,
        "mech_tools": sorted(data.mech_tools),
        "mechs_info": data.mechs_info,
    }


class HttpHandler(ToolMetadataHttpHandler):
    """The tool metadata HTTP API plus ``GET /synchronized_data``."""

    def handle(self, message: HttpMessage) -> None:  # type: ignore[override]
        """Serve ``GET /synchronized_data``; pass everything else on.

        :param message: the HTTP message.
        """
        if (
            message.performative != HttpMessage.Performative.REQUEST
            or urlparse(message.url).path.rstrip("/") != SYNCHRONIZED_DATA_PATH
        ):
            super().handle(message)
            return
        dialogues = cast(HttpDialogues, self.context.http_dialogues)
        dialogue = cast(Optional[HttpDialogue], dialogues.update(message))
        if dialogue is None:
            self.context.logger.warning(
                f"dropping HTTP request that fits no dialogue: {message.url}"
            )
            return
        if message.method.upper() != "GET":
            status, body = 405, {
                "error": {"code": "method_not_allowed", "message": "only GET is served"}
            }
        else:
            data = SynchronizedData(
                self.context.state.round_sequence.latest_synchronized_data.db
            )
            status, body = 200, synchronized_data_view(data)
        response = dialogue.reply(
            performative=HttpMessage.Performative.RESPONSE,
            target_message=message,
            version=message.version,
            status_code=status,
            status_text="OK" if status == 200 else "Method Not Allowed",
            headers=JSON_HEADERS,
            body=json.dumps(body, separators=(",", ":"), sort_keys=True).encode(
                "utf-8"
            ),
        )
        self.context.outbox.put_message(message=response)
