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

"""``make test-unit`` and what docs/testing.md and the README say of it agree.

The doc quoted "about a minute", measured with ``-m "unit or slow" -n 2``, while the
target runs ``-m unit`` in one process (about three minutes). The doc's row must quote
the target's own selection and process count, and a figure of minutes that fits it.
"""

import re

from scripts.toolchain import REPO_ROOT


def recipe(target: str) -> str:
    """The recipe lines of a Makefile target.

    :param target: its name.
    :return: the command lines, joined.
    """
    text = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
    found = re.search(rf"^{target}:[^\n]*\n((?:\t[^\n]*\n)+)", text, re.MULTILINE)
    assert found, target
    return found.group(1)


def row(target: str) -> str:
    """The docs/testing.md table row of a make target.

    :param target: e.g. ``make test-unit``.
    :return: the row's text.
    """
    text = (REPO_ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    found = re.search(rf"^\| `{re.escape(target)}` \|[^\n]*$", text, re.MULTILINE)
    assert found, target
    return found.group(0)


def test_the_doc_quotes_what_the_target_runs() -> None:
    """Same marker, same process count (no -n in the target: none claimed)."""
    commands, said = recipe("test-unit"), row("make test-unit")
    assert "-m unit" in commands and "`-m unit`" in said
    assert "unit or slow" not in said
    uses_workers = re.search(r"\s-n\s", commands) is not None
    claims_workers = "one process" not in said
    assert uses_workers == claims_workers, said


def test_the_figure_is_minutes_not_one() -> None:
    """The target takes minutes on 2 CPUs: neither the doc nor the README says one."""
    said = row("make test-unit")
    assert "about a minute" not in said
    assert re.search(r"\d+ s on an otherwise idle 2-CPU machine", said)
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    quick = readme[readme.index("`make test-unit`") :][:200]
    assert "about a minute" not in quick
