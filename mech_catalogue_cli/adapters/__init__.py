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

"""The CLI's blocking I/O adapters: one module per kind of I/O, each over ``requests``.

- :mod:`.jsonrpc`: JSON-RPC to a chain node (``eth_call``, ``eth_blockNumber``,
  ``eth_chainId``, ``eth_getLogs``); failures are the library's one ``ChainReadError``;
- :mod:`.ipfs`: IPFS HTTP gateways (capped, ranged GETs; raw blocks) and a kubo node's RPC
  API (``add``, ``cat``, ``block/get``, ``version``); failures are
  :class:`.ipfs.IpfsTransportError` or, where the library's fetch window decides, text;
- :mod:`.http`: sessions, the whole-request deadline every adapter reads within
  (:func:`.http.deadline`; :class:`.http.DeadlineSession` for web3's provider), and one
  JSON answer of an upstream HTTP API within a byte cap, that deadline and a nesting
  depth (:class:`.http.AnswerError`);
- :mod:`.urls`: how every adapter names a URL in a message (scheme and host only: RPC
  and gateway URLs may carry an API key).

The decisions (what to read, retries, which gateway, what an answer means) stay in the
library (:mod:`mech_catalogue_core`); these modules only move bytes within their bounds.
No other CLI module imports ``requests`` or ``urllib3`` (``lint-imports``). Transactions
(``publish``, the MCP server's paid call) go through web3, which has its own client, on
a :class:`.http.DeadlineSession`.
"""
