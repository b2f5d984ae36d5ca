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

# pylint: disable=duplicate-code  # the dialogue aliases every chained skill declares
"""Dialogues of the requester skill: the catalogue skill's (HTTP as client and server)."""

from packages.mech_catalogue.skills.tool_metadata_abci.dialogues import (
    AbciDialogue as ToolMetadataAbciDialogue,
)
from packages.mech_catalogue.skills.tool_metadata_abci.dialogues import (
    AbciDialogues as ToolMetadataAbciDialogues,
)
from packages.mech_catalogue.skills.tool_metadata_abci.dialogues import (
    ContractApiDialogue as ToolMetadataContractApiDialogue,
)
from packages.mech_catalogue.skills.tool_metadata_abci.dialogues import (
    ContractApiDialogues as ToolMetadataContractApiDialogues,
)
from packages.mech_catalogue.skills.tool_metadata_abci.dialogues import (
    HttpDialogue as ToolMetadataHttpDialogue,
)
from packages.mech_catalogue.skills.tool_metadata_abci.dialogues import (
    HttpDialogues as ToolMetadataHttpDialogues,
)
from packages.mech_catalogue.skills.tool_metadata_abci.dialogues import (
    IpfsDialogue as ToolMetadataIpfsDialogue,
)
from packages.mech_catalogue.skills.tool_metadata_abci.dialogues import (
    IpfsDialogues as ToolMetadataIpfsDialogues,
)
from packages.mech_catalogue.skills.tool_metadata_abci.dialogues import (
    LedgerApiDialogue as ToolMetadataLedgerApiDialogue,
)
from packages.mech_catalogue.skills.tool_metadata_abci.dialogues import (
    LedgerApiDialogues as ToolMetadataLedgerApiDialogues,
)
from packages.mech_catalogue.skills.tool_metadata_abci.dialogues import (
    SigningDialogue as ToolMetadataSigningDialogue,
)
from packages.mech_catalogue.skills.tool_metadata_abci.dialogues import (
    SigningDialogues as ToolMetadataSigningDialogues,
)
from packages.mech_catalogue.skills.tool_metadata_abci.dialogues import (
    TendermintDialogue as ToolMetadataTendermintDialogue,
)
from packages.mech_catalogue.skills.tool_metadata_abci.dialogues import (
    TendermintDialogues as ToolMetadataTendermintDialogues,
)

AbciDialogue = ToolMetadataAbciDialogue
AbciDialogues = ToolMetadataAbciDialogues
HttpDialogue = ToolMetadataHttpDialogue
HttpDialogues = ToolMetadataHttpDialogues
SigningDialogue = ToolMetadataSigningDialogue
SigningDialogues = ToolMetadataSigningDialogues
LedgerApiDialogue = ToolMetadataLedgerApiDialogue
LedgerApiDialogues = ToolMetadataLedgerApiDialogues
ContractApiDialogue = ToolMetadataContractApiDialogue
ContractApiDialogues = ToolMetadataContractApiDialogues
TendermintDialogue = ToolMetadataTendermintDialogue
TendermintDialogues = ToolMetadataTendermintDialogues
IpfsDialogue = ToolMetadataIpfsDialogue
IpfsDialogues = ToolMetadataIpfsDialogues
