"""Framework-free domain code of the tool metadata skill (no aea imports here).

Modules, in a reading order for a newcomer (the manifest model first, then how bytes
become a catalogue, then what the skill does with it):

- :mod:`.model`: the immutable catalogue model (Manifest, Mech, Catalogue, statuses).
- :mod:`.tool`: its tool-level parts (MechRef, Provenance and shapes, Argument, Tool).
- :mod:`.types`: the argument type vocabulary and its JSON Schema 2020-12 mapping.
- :mod:`.problems`: Problem, and the one registry of every problem code with its sentence.
- :mod:`.limits`: the size caps every manifest is held to.
- :mod:`.canonical`: canonical JSON (RFC 8785) and the digests computed over it.
- :mod:`.validation`: strict decoding of manifest bytes; manifest-v1 JSON Schema checks.
- :mod:`.parsing`: every top-level manifest shape into a Manifest; never raises.
- :mod:`.parse_tool`: one tool's metadata (kwargs, input.schema, v1 arguments...) into a Tool.
- :mod:`.unixfs`: the root block ``ipfs add`` stores for a file (dag-pb / raw layouts).
- :mod:`.cid`: on-chain digest <-> CID, and verifying fetched bytes against the digest.
- :mod:`.registry`: reading digests from the three registry kinds through Multicall2.
- :mod:`.snapshot`: the registry snapshot the agents agree on, and its digest.
- :mod:`.fetching`: fetch policy (retries, cache, last good) and the catalogue refresh.
- :mod:`.views`: catalogue views in the shapes other skills read (mech_tools, mechs_info).
- :mod:`.published`: what the skill publishes agent-wide (the agreed catalogue + freshness).
- :mod:`.http_request`: strict, total parsing of the API's requests (never raises).
- :mod:`.http_api`: the read-only HTTP API (``GET /tools``...) as pure functions, served
  from a view built once per agreed catalogue.
- :mod:`.static_values`: evaluating literal Python expressions from an AST, never executing.
- :mod:`.python_hints`: type and description hints from annotations, literals, docstrings.
- :mod:`.derive`: typed tool arguments from a tool package by static analysis (ast only).
- :mod:`.generate`: the service's own v1 manifest from its tool packages plus overrides.
- :mod:`.publish`: publishing that manifest: decide, build the calls, check every step.
- :mod:`.exporters`: tools in the formats agents speak (MCP, OpenAI, Anthropic, LangChain,
  A2A AgentCard, ERC-8004), with :mod:`.exporters.names` and :mod:`.exporters.schemas`.
- ``spec/manifest-v1.schema.json``: the published manifest specification (JSON Schema).
"""
