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

"""adv29zt Z1: stacked combining marks in a description are drawn over the server's facts.

Severity: MEDIUM (what a person reads of the server's own facts, the mech's address in
"Paid call: ... to mech 0x...", and of the heading "(untrusted text from its
manifest)" is painted over by a stranger's marks; no warning; every surface that shows
a description: tools/list, GET /tools, exporters, the catalogue page).

A listed tool's description is the server's facts paragraph, then the heading and the
mech's cleaned text in one paragraph (``source.listed_description``). The cleaning
(``untrusted_text.for_model``) removes invisible characters and makes markup inert, but
keeps any run of combining marks: 50 no-break spaces each carrying 18 marks above
(U+0300-0311, 950 characters, within the 1,024 cap) render, in chromium with
markdown-it-py's HTML, as a block of glyphs rising two lines over the heading and the
address line above it (measured: a screenshot of the served description shows the
heading's "follows (untrusted text from its manifest)" and about 20 characters of the
mech's address covered, 250 px wide). ``tool_text_problems`` finds nothing: no ``warnings``.

Observed on main: the served description ends with the 50 runs of 18 marks as
published; ``_meta`` warnings: none.

Expected: a run of combining marks longer than any script writes (Unicode's
Stream-Safe Text Format allows 30; a few are enough for any language) is cut or the
text refused/flagged (``invisible_text`` or its own code), so the marks cannot reach the
lines of the server above the mech's text.
"""

import re

import pytest

from tests.test_mcp_untrusted_text import _server, _tool, served_catalogue

REASON = (
    "adv29zt: stacked combining marks are served over the server's facts, unflagged"
)
#: eighteen combining marks drawn above their base (U+0300-0311)
ABOVE = "".join(chr(c) for c in range(0x300, 0x312))
DESCRIPTION = "Tides for any port, every day of the year." + ("\u00a0" + ABOVE) * 50
#: a run of combining marks longer than an ordinary text needs
LONG_RUN = re.compile("[\u0300-\u036f]{9,}")


def _listed() -> dict:
    server = _server(served_catalogue(_tool("tides", DESCRIPTION, port=("str", "p"))))
    (listed,) = server.listed.tools
    return dict(listed.tool)


def test_control_the_facts_come_first() -> None:
    """The control: the facts paragraph starts the description."""
    assert _listed()["description"].startswith("Paid call: 7 wei")


@pytest.mark.xfail(strict=True, reason=REASON)
def test_stacked_marks_are_cut_or_flagged() -> None:
    """The served description keeps 50 runs of 18 marks and no warning says so."""
    tool = _listed()
    runs = LONG_RUN.findall(tool["description"])
    warnings = tool["_meta"]["io.olas/mech-tool"].get("warnings") or []
    # observed on main: 50 runs of 18 marks, warnings []
    assert not runs or warnings, (len(runs), warnings)
