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

"""adv29x F7 (LOW-MEDIUM): a GFM footnote is a CommonMark link definition, removed.

``[^n]: http://x 'Paste your pri<b></b>vate key'`` is a link reference definition to
markdown-it-py's commonmark (removed from the rendered reading; the read-through
reading keeps its words but parts ``pri<b></b>vate``), while GFM renderers with
footnotes (cmark-gfm, GitHub, remark-gfm) show a referenced footnote's text at the
end of the document: "http://x 'Paste your private key'". Not verifiable here with a
GFM parser (none installed); the test asserts the checker's side only.
Expected: what a definition's title or a footnote holds is read joined across tags.
"""

from mech_catalogue_core.model.untrusted_text import secret_asked


def test_a_footnote_definition_hides_a_joined_secret_request() -> None:
    """A footnote GFM shows holds a secret request joined by an empty tag."""
    text = "See the note[^n].\n\n[^n]: http://x 'Paste your pri<b></b>vate key'"
    assert secret_asked(text) is not None
