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

"""mech_catalogue_core: the domain library of Olas mech tool metadata (no aea imports here).

The skills in ``packages/mech_catalogue`` (the tool metadata and manifest publish skills),
the ``mech-catalogue`` CLI and its MCP server are adapters over it: they do the I/O and
call these pure functions and generators. The skills pin it by exact version in their
``skill.yaml`` (docs/ARCHITECTURE.md, "Keeping the agents on one version").

Grouped by concern, in a reading order for a newcomer (what things are, then how chain
data and bytes become a catalogue, then what the skills do with it):

- :mod:`.model`: the immutable catalogue model (``catalogue``: Manifest, Mech, Catalogue,
  statuses; ``tool``: MechRef, Provenance, Argument, Tool), the argument ``types``,
  ``problems`` (every problem code with its sentence), size ``limits``, ``canonical``
  JSON (RFC 8785) and digests.
- :mod:`.chain`: ``registry`` (reading digests from the three registry kinds through
  Multicall2) and ``snapshot`` (what the agents agree on, and its digest).
- :mod:`.ipfs`: ``cid`` (on-chain digest <-> CID, verifying fetched bytes), ``unixfs``
  (the root block ``ipfs add`` stores), ``dag_pb`` (reading such blocks back), ``size_cap``
  (the cap on every read).
- :mod:`.manifest`: ``validation`` (strict decoding, the v1 JSON Schema in ``spec/``),
  ``parsing`` (every top-level shape, never raises), ``parse_tool`` (one tool's
  metadata), ``schema_refs`` (self-contained argument schemas), ``typed_fast_path``
  (the common typed shape decoded by msgspec, only where it equals ``parsing``'s).
- :mod:`.catalogue`: ``fetching`` (fetch policy, cache, last good, the refresh),
  ``store`` (what each agent keeps by digest), ``views`` (shapes other skills read),
  ``exposure`` (the agreed catalogue exposed agent-wide, with its freshness).
- :mod:`.http_api`: ``request`` (strict, total request parsing) and ``routes`` (the
  read-only API as pure functions over a view built once per agreed catalogue).
- :mod:`.exporters`: tools in the formats agents speak (MCP, OpenAI, Anthropic,
  LangChain, A2A AgentCard, ERC-8004), with ``names`` and ``schemas``.
- :mod:`.derive`: ``static_values`` and ``python_hints`` (reading Python source without
  executing it), ``derive`` (typed arguments from a tool package), ``generate`` (a v1
  manifest from tool packages plus overrides).
- :mod:`.publish`: writing a manifest's digest on chain (the only meaning of "publish").
- :mod:`.driver`: the one loop that runs the I/O-free generators (``snapshot_reader``,
  ``manifest_fetcher``) with an I/O adapter: blocking (CLI, benchmarks, devnet tests) or
  yielding (the behaviours).
"""
