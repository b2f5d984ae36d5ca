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

"""Handlers of the requester skill: the catalogue skill's, plus ``GET /synchronized_data``.

``GET /synchronized_data`` shows, read-only, the keys chained apps read (as the tool
metadata service serves them) and the requester's last request and answers::

    {"period_count": int, "participants": int, "catalogue_digest": str,
     "registry_snapshot_digest": str, "mech_tools": [str, ...] (sorted),
     "mechs_info": [MechInfo-compatible dict, ...],
     "request": {"tool": str | null, "mech": str | null, "price": int | null (wei),
                 "responses": [{"request_id": str, "nonce": str,
                                "answer": first line of the result | null,
                                "error": str | null}, ...]}}

``mech`` is the mech this agent's mech-interact called last (its shared state), ``price``
the agreed ``mech_price`` of the last request.
"""

import json
from typing import Any, Dict, List, Optional

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
#: characters of an answer's first line shown (the whole answer stays in the database)
ANSWER_PREVIEW = 200

ABCIHandler = ToolMetadataABCIHandler
SigningHandler = ToolMetadataSigningHandler
LedgerApiHandler = ToolMetadataLedgerApiHandler
ContractApiHandler = ToolMetadataContractApiHandler
TendermintHandler = ToolMetadataTendermintHandler
IpfsHandler = ToolMetadataIpfsHandler


def first_line(text: Optional[str]) -> Optional[str]:
    """The first line of an answer, cut to :data:`ANSWER_PREVIEW` characters.

    :param text: the answer (None when there is none).
    :return: its first line, or None.
    """
    if text is None:
        return None
    return str(text).split("\n", 1)[0][:ANSWER_PREVIEW]


def responses_view(raw: Any) -> List[Dict[str, Any]]:
    """Summarise mech-interact's ``mech_responses`` (a JSON list, or its text).

    :param raw: the database value.
    :return: ``[{"request_id", "nonce", "answer", "error"}, ...]``; ``error`` is None
        when the answer was read.
    """
    items = json.loads(raw) if isinstance(raw, str) else raw
    view = []
    for item in items or []:
        result = item.get("result")
        # marketplace requests carry their bytes32 ids in requestIds (requestId stays 0)
        ids = item.get("requestIds") or [item.get("requestId", "")]
        view.append(
            {
                "request_id": str(ids[0]),
                "nonce": str(item.get("nonce", "")),
                "answer": first_line(result),
                "error": None if result is not None else item.get("error"),
            }
        )
    return view


def synchronized_data_view(
    data: SynchronizedData, mech: Optional[str]
) -> Dict[str, Any]:
    """The chained apps' view of the synchronized data, and the last request.

    :param data: the latest synchronized data.
    :param mech: the mech this agent's mech-interact called last (None before any).
    :return: the JSON document served at ``GET /synchronized_data`` (see the module doc).
    """
    db = data.db
    price = db.get("mech_price", None)
    return {
        "period_count": data.period_count,
        "participants": len(db.get("participants", None) or ()),
        "catalogue_digest": data.catalogue_digest,
        "registry_snapshot_digest": data.registry_snapshot_digest,
        "mech_tools": sorted(data.mech_tools),
        "mechs_info": data.mechs_info,
        "request": {
            "tool": db.get("mech_tool", None),
            "mech": mech,
            "price": None if price is None else int(price),
            "responses": responses_view(db.get("mech_responses", None)),
        },
    }


class HttpHandler(ToolMetadataHttpHandler):
    """The catalogue HTTP API plus ``GET /synchronized_data``."""

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
        mech = getattr(self.context.state, "last_called_mech", None)
        return json_result(200, synchronized_data_view(data, mech))
