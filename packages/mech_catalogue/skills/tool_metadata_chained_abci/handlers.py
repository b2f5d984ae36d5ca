"""Handlers of the chained skill: the tool metadata skill's (incl. its HTTP catalogue API)."""

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

ABCIHandler = ToolMetadataABCIHandler
HttpHandler = ToolMetadataHttpHandler
SigningHandler = ToolMetadataSigningHandler
LedgerApiHandler = ToolMetadataLedgerApiHandler
ContractApiHandler = ToolMetadataContractApiHandler
TendermintHandler = ToolMetadataTendermintHandler
IpfsHandler = ToolMetadataIpfsHandler
