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

"""The text checks of a mech's own fields: its manifest's ``name``, ``description``, extras.

A tool's text is checked by :func:`.untrusted_text.tool_text_problems`; the manifest's
own fields (what the service says of itself, read from IPFS like its tools) went
unchecked (perf29c): a mech could hide tag characters, bidi controls or instructions to
a model in its name or description, shown by ``list``, ``show``, the A2A card, the
ERC-8004 registration and the catalogue page. Every surface already shows them cleaned
and capped (:func:`.untrusted_text.for_model`, ``label_for_model``, ``for_person``);
this module gives the catalogue the same warnings it gives a tool, so the mech's
entry says so wherever its problems are listed (``GET /mechs``, ``list``, ``validate``).
"""

import json
from typing import Any, Dict, List, Tuple

from mech_catalogue_core.model.problems import (
    INSTRUCTION_LIKE_TEXT,
    INVISIBLE_TEXT,
    Problem,
    warning,
)
from mech_catalogue_core.model.secret_requests import flagged_phrases
from mech_catalogue_core.model.stacked_marks import has_marks_to_cut
from mech_catalogue_core.model.untrusted_text import (
    hidden_in,
    json_texts,
    label_for_model,
    pointer_of,
    render_hidden_kinds,
    strip_invisible,
)

#: phrases and fields quoted in one warning at most
MAX_QUOTED = 3


def _extra_of(extra_json: str) -> Any:
    try:
        return json.loads(extra_json)
    except ValueError:
        return {}


def mech_texts(name: str, description: str, extra_json: str) -> List[Tuple[str, str]]:
    """Every text a manifest says of its mech, with the field it is in.

    :param name: the manifest's ``name``.
    :param description: its ``description``.
    :param extra_json: the canonical JSON of its other top-level fields.
    :return: ``(JSON pointer, text)`` pairs: ``/name``, ``/description``, then every
        string and key of the extras (``/<field>/...``), empty texts left out.
    """
    found = [("/name", name), ("/description", description)]
    found += [
        (pointer_of(place), text) for place, text in json_texts(_extra_of(extra_json))
    ]
    return [(where, text) for where, text in found if text]


def _quoted(texts: List[str]) -> str:
    shown = ", ".join(repr(label_for_model(t)) for t in texts[:MAX_QUOTED])
    more = len(texts) - MAX_QUOTED
    return shown + (f" and {more} more" if more > 0 else "")


def mech_text_problems(
    name: str, description: str, extra_json: str
) -> Tuple[Problem, ...]:
    """The warnings about a mech's own text (at most one of each code).

    :param name: the manifest's ``name``.
    :param description: its ``description``.
    :param extra_json: the canonical JSON of its other top-level fields.
    :return: :data:`.problems.INVISIBLE_TEXT` (fields holding invisible or control
        characters, markup that hides text when rendered, or combining marks
        :func:`.stacked_marks.marks_cut` cuts) and
        :data:`.problems.INSTRUCTION_LIKE_TEXT` (phrases addressing a model or asking
        it for a secret: :func:`.secret_requests.flagged_phrases`) warnings,
        in that order, each naming the fields or phrases (cleaned, capped at
        ``MAX_LABEL_CHARS``) and what to do; pointer ``""`` (the manifest).
    """
    hiding: List[str] = []
    phrases: Dict[str, None] = {}
    for where, text in mech_texts(name, description, extra_json):
        if (
            hidden_in(text, 1)
            or render_hidden_kinds(text)
            or has_marks_to_cut(strip_invisible(text))
        ):
            hiding.append(where[1:])
        phrases.update(dict.fromkeys(flagged_phrases(text)))
    problems = []
    if hiding:
        problems.append(
            warning(
                INVISIBLE_TEXT,
                f"the mech's own text: {len(hiding)} field(s) hold invisible or control "
                "characters, markup that hides text when rendered, or combining marks "
                "drawn over other text "
                f"({_quoted(hiding)}); invisible characters are removed, markup is "
                "shown as plain text and stacked marks are cut wherever the text is "
                "shown. Publish visible plain text only.",
            )
        )
    if phrases:
        problems.append(
            warning(
                INSTRUCTION_LIKE_TEXT,
                f"the mech's own text reads like instructions to a model "
                f"({_quoted(list(phrases))}); it is shown as the mech's untrusted "
                "description. Describe what the mech does, not what the reader must do.",
            )
        )
    return tuple(problems)
