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

"""Handlers of the chained skill: the tool metadata skill's, plus ``GET /synchronized_data``.

``GET /synchronized_data`` shows, read-only, the keys of the ABCI ``SynchronizedData``
that other apps chained after tool metadata read (mech-interact and trader read
``mech_tools`` and ``mechs_info``)::

    {"period_count": int, "participants": int, "catalogue_digest": str,
     "registry_snapshot_digest": str, "mech_tools": [str, ...] (sorted),
     "mechs_info": [MechInfo-compatible dict, ...]}

Requests are parsed by the tool metadata skill's handler (strict and total; its guard
answers 500 instead of raising); every other path is its (``/tools``, ``/tools/<name>``,
``/mechs``, ``/healthcheck``).
"""

from typing import Any, Dict

from mech_catalogue_core.http_api.request import (
    HttpResult,
    Request,
    json_result,
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

    SUPPORTED_PROTOCOL = HttpMessage.protocol_id
    extra_paths = (SYNCHRONIZED_DATA_PATH,)

    def answer_request(self, request: Request) -> HttpResult:
        """Serve ``GET /synchronized_data``; pass everything else on.

        :param request: the parsed request (GET, no query, no body).
        :return: the response.
        """
        if request.path != SYNCHRONIZED_DATA_PATH:
            return super().answer_request(request)
        data = SynchronizedData(
            self.context.state.round_sequence.latest_synchronized_data.db
        )
        return json_result(200, synchronized_data_view(data))
