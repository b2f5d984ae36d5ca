"""Dialogues of the chained skill: the tool metadata skill's (HTTP as client and server)."""

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
