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

"""The ``mcp`` command's choices and defaults, apart from the server that uses them.

``mech-catalogue mcp --help`` builds its options from these; the server's modules (web3,
the MCP SDK) are imported only when the server starts, so the help is read without them.
"""

from enum import Enum, StrEnum


class DiscoveryMode(StrEnum):
    """``mcp --discovery``: what ``tools/list`` lists."""

    LIST = "list"  # every listed tool (the catalogue)
    SEARCH = "search"  # the three discovery tools
    AUTO = "auto"  # SEARCH above AUTO_THRESHOLD listed tools, else LIST


#: listed tools above which ``auto`` switches to search mode. Clients cap the tools they
#: load (Cursor has capped at 40 tools, VS Code at 128 a request) and a
#: listed typed tool costs about 500 to 1,000 tokens of context: 40 tools are 20,000 to
#: 40,000 tokens, about what a model can spare beside its conversation
AUTO_THRESHOLD = 40


class OffchainMode(str, Enum):
    """``--offchain``: when a call is posted to a mech's endpoint."""

    #: off-chain when the mech declares an endpoint and the prepaid balance covers the
    #: price (read before posting), else the on-chain request
    AUTO = "auto"
    #: always the on-chain request (the default: see docs/mcp.md)
    NEVER = "never"
    #: only mechs with an endpoint, only off-chain: a short balance is an error
    ONLY = "only"


#: seconds per IPFS upload or fetch, and to wait for a sent transaction's receipt
#: (``mech-catalogue mcp --io-timeout``)
IO_TIMEOUT = 30.0
