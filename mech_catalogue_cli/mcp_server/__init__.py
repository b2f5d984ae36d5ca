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

"""``mech-catalogue mcp``: an MCP server whose tools are the catalogue and whose calls are paid mech requests.

Modules (see docs/mcp.md):

Framework-free decisions, unit-tested without a chain:

- :mod:`.offers`: which mech serves a call and why (tenure, caps, pins), who delivered;
- :mod:`.definition_checks`: hidden text, secret arguments, pinned definitions, argument
  validation;
- :mod:`.checked_definitions`: each definition's text checks, kept by the digest of what
  they read (a bounded cache: a listing re-checks only what changed);
- :mod:`.call_identity`: the call key, payload nonce and request payload;
- :mod:`.spend_cap`: ``--max-spend`` over ``--spend-window``;
- :mod:`.response_checks`: a delivered response read as bounded JSON, against the
  output schema;
- :mod:`.listed_schemas`: the output schemas each MCP session was last listed, which a
  structured answer must match too.

Adapters and wiring:

- :mod:`.source`: where the catalogue comes from (a running agent's HTTP API or a direct
  read of the registries and the marketplace with the skill's own code);
- :mod:`mech_catalogue_cli.adapters.http`: one agent answer read within a byte cap, a deadline and a depth;
- :mod:`.market`: the MechMarketplace request/delivery over web3, with the call journal;
- :mod:`.ipfs`: request upload (kubo API) and verified response fetch (gateway);
- :mod:`.settings`: call settings (caps, timeouts) and a call's phase timer;
- :mod:`.sending`: one paid request sent at most once per call key, at today's price;
- :mod:`.payment`: this requester's funds at a payment type's tracker, and a token
  call's exact approval;
- :mod:`.prepay`: a deposit into a tracker (``mech-catalogue prepay``), at most once;
- :mod:`.delivery`: waiting for a paid request's answer, fetching and verifying it;
- :mod:`.results`: what a call answers (argument errors, answers, the choice made);
- :mod:`.pins`: approved tool definitions (``--pin``);
- :mod:`.listed_file`: what sessionless clients were listed, kept in the state folder;
- :mod:`.server`: the ``mcp`` SDK low-level ``Server`` wiring it together.
"""
