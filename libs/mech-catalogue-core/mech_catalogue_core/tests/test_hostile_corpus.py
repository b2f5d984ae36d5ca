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

"""Every hostile manifest gets its expected code, never an exception, and good tools survive."""

import re

import pytest
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.tool import MechRef

from .hostile_corpus import Case, build_corpus

CORPUS = build_corpus()
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def test_corpus_is_large_enough() -> None:
    """The brief asks for at least 40 hostile manifests; names are unique."""
    assert len(CORPUS) >= 40
    assert len({c.name for c in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("case", CORPUS, ids=[c.name for c in CORPUS])
def test_hostile_manifest(case: Case) -> None:
    """Expected code present; rejected documents yield no manifest; survivors exact."""
    result = parse_manifest(case.data, case.limits)
    assert case.code in result.codes, result.problems
    for problem in result.problems:
        assert problem.message and len(problem.message) < 600
        assert not CONTROL.search(problem.message + problem.path), problem
    if case.survivors is None:
        assert result.manifest is None
        assert len(result.errors) >= 1
    else:
        assert result.manifest is not None
        assert result.manifest.tool_names == case.survivors


def test_one_bad_manifest_never_affects_another() -> None:
    """Parsing the whole corpus into one catalogue keeps each mech's outcome separate."""
    mechs = []
    for index, case in enumerate(CORPUS):
        result = parse_manifest(case.data, case.limits)
        ref = MechRef(1, "legacy_mech_registry", "0x" + "00" * 20, index)
        mechs.append(Mech.from_manifest(ref, result.manifest, result.problems))
    catalogue = Catalogue.build(mechs)
    assert Catalogue.from_json(catalogue.to_json()) == catalogue
    for index, case in enumerate(CORPUS):
        entry = catalogue.mechs[index]
        assert (entry.status == "ok") == (case.survivors is not None)
        expected = case.survivors or ()
        assert tuple(t.name for t in entry.tools) == expected
