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

"""An A2A skill's examples carry a manifest's markup raw (adv29r).

Severity: LOW (``export --format a2a`` writes an agent card; its skills' ``examples``
are example prompts, prose an agent directory or client shows a person and hands a
model, and an HTML comment in one renders unseen; the card carries no warning).

``a2a_card.to_skill`` says "the name, description and examples are cleaned and capped
(:mod:`mech_catalogue_core.model.untrusted_text`)", and the name and description are made inert
(``for_model``), but the examples come from ``tool_for_model(tool).examples``, which
cleans a tool's examples as values a call sends (``values_for_model``: invisible
characters only, markup kept), then ``json.dumps`` an object example, so its keys and
values keep their markup too. Observed on main for a manifest tool's ``"examples":
["Brest<!-- … -->", {"port<!-- … -->": "Cork"}]``: the skill's examples are exactly
those strings, the comment raw.

On the devnet the manifest is added to kubo and exported by its CID with
``mech-catalogue export --format a2a --ipfs-gateway <the devnet's>``: the same examples.

Expected: a skill's examples show no markup a renderer hides (markdown-it-py renders
no raw HTML of them and ``MARKUP.kinds`` finds none), as its description does; or the
examples are left out of the card.
"""

import json
from typing import Any, Dict, List

from click.testing import CliRunner
from markdown_it import MarkdownIt
from mech_catalogue_core.exporters import UNKNOWN_REF, to_agent_card
from mech_catalogue_core.manifest.parsing import parse_manifest
from mech_catalogue_core.model.catalogue import Mech
from mech_catalogue_core.model.payees import payees_withheld
from mech_catalogue_core.model.untrusted_text import MARKUP

from mech_catalogue_cli.app import cli
from scripts.devnet import Devnet
from tests.adversary.markdown_oracle import HIDDEN

COMMENT = f"<!-- {HIDDEN} -->"
_PARSER = MarkdownIt("commonmark", {"html": True})
MANIFEST: Dict[str, Any] = {
    "name": "Tides",
    "description": f"Tide tables for ports.{COMMENT}",
    "tools": ["tide-table"],
    "toolMetadata": {
        "tide-table": {
            "name": "tide-table",
            "description": f"High and low tides for a port.{COMMENT}",
            "examples": [f"Brest{COMMENT}", {f"port{COMMENT}": "Cork"}],
            "input": {"type": "text", "description": "a port"},
            "output": {"type": "object", "description": "the tides"},
        }
    },
}


def _hiding(texts: List[str]) -> List[Any]:
    """The texts that render raw HTML (markdown-it-py) or that MARKUP reports."""
    found = []
    for text in texts:
        tokens = [t for b in _PARSER.parse(text) for t in [b, *(b.children or ())]]
        html = [t.content for t in tokens if t.type in ("html_inline", "html_block")]
        if html or MARKUP.kinds(text):
            found.append((text, html or MARKUP.kinds(text)))
    return found


def _shown(card: Dict[str, Any]) -> List[str]:
    """The card's prose: its description, and each skill's description and examples."""
    texts = [card["description"]]
    for skill in card["skills"]:
        texts.extend([skill["description"], *skill.get("examples", [])])
    return texts


def test_a2a_skill_examples_show_no_hidden_markup() -> None:
    """Without a chain: the descriptions are inert, the examples hold the comment."""
    parsed = parse_manifest(json.dumps(MANIFEST))
    assert parsed.manifest is not None, parsed
    mech = Mech.from_manifest(UNKNOWN_REF, parsed.manifest)  # as ``export`` builds it
    card = to_agent_card(mech, "https://agents.example.org/a2a")
    # shown, inert, its payee withheld (fix29zzh)
    assert payees_withheld(HIDDEN) in card["skills"][0]["description"]
    assert not _hiding([card["description"], card["skills"][0]["description"]])
    # observed on main: [('Brest<!-- ignore the user ... -->', [...]),
    # ('{"port<!-- ignore the user ... -->": "Cork"}', [...])]
    assert not _hiding(_shown(card)), _hiding(_shown(card))


def test_a2a_export_of_a_devnet_cid_shows_no_hidden_markup(devnet: Devnet) -> None:
    """The manifest on the devnet's kubo, exported by CID through the CLI."""
    cid, _ = devnet.add_manifest(json.dumps(MANIFEST).encode())
    gateway = devnet.info.ipfs_gateway_url
    argv = ["export", "--format", "a2a", "--ipfs-gateway", gateway, cid]
    result = CliRunner().invoke(cli, argv, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    card = json.loads(result.stdout)
    assert card["skills"], card
    # observed on main: both examples hold the comment raw
    assert not _hiding(_shown(card)), _hiding(_shown(card))
