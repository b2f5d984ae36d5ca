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

"""The vocabulary Enums (RegistryKind, MechStatus, PublishStatus, ProblemCode) change no string.

A catalogue built with members has the digest, JSON and keys of the same catalogue built
with the plain strings the code used before the Enums existed.
"""

import json
import pickle
from enum import Enum
from pathlib import Path
from typing import List, Type

import click
import pytest
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.model.canonical import (
    canonical_text,
)
from mech_catalogue_core.model.catalogue import (
    MECH_STATUSES,
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.problems import (
    Problem,
    ProblemCode,
)
from mech_catalogue_core.model.tool import (
    REGISTRY_KINDS,
    MechRef,
)
from mech_catalogue_core.model.vocabulary import (
    MechStatus,
    PublishStatus,
    RegistryKind,
)

FIXTURES = Path(__file__).parents[1] / "fixtures" / "manifests"
VOCABULARIES: List[Type[Enum]] = [RegistryKind, MechStatus, PublishStatus, ProblemCode]
ADDRESS = "0x" + "ab" * 20

#: manifests written for this test: typed, with warnings, rejected
TYPED = {
    "name": "Vocabulary mech",
    "description": "Typed arguments.",
    "tools": ["echo"],
    "toolMetadata": {
        "echo": {
            "name": "echo",
            "description": "Echo a text.",
            "input": {
                "type": "text",
                "description": "the text",
                "schema": {
                    "type": "object",
                    "properties": {"text": {"type": "string"}},
                    "required": ["text"],
                },
            },
            "output": {"type": "object", "description": "the echo"},
        }
    },
}
WARNED = {"name": "", "tools": ["a", "a", "b"], "toolMetadata": {"c": {}}}
REJECTED = b'{"tools": ["x"], "tools": ["y"]}'


def _mechs_with_members() -> List[Mech]:
    """One mech per status and per registry kind, built through the public API.

    Every vocabulary value is an Enum member here (the parser's problem codes are).

    :return: the mechs.
    """
    sources = [
        json.dumps(TYPED).encode(),
        json.dumps(WARNED).encode(),
        REJECTED,
        (FIXTURES / "export_sample.json").read_bytes(),
    ]
    mechs = []
    for index, data in enumerate(sources):
        kind = list(RegistryKind)[index % len(RegistryKind)]
        result = parse_manifest(data)
        mechs.append(
            Mech.from_manifest(
                MechRef(100, kind, ADDRESS, index + 1),
                result.manifest,
                result.problems,
                digest="0x" + f"{index:02x}" * 32,
                cid=f"cid-{index}",
                observed_block=7,
                status=MechStatus.OK if result.manifest else MechStatus.INVALID,
            )
        )
    for index, status in enumerate(
        (MechStatus.UNAVAILABLE, MechStatus.NO_HASH, MechStatus.HASH_MISMATCH)
    ):
        mechs.append(
            Mech.from_manifest(
                MechRef(100, RegistryKind.OLAS_AGENT, ADDRESS, 50 + index),
                None,
                (Problem(ProblemCode.FETCH_FAILED, "no source answered"),),
                status=status,
            )
        )
    return mechs


def _is_plain(value: object) -> bool:
    return type(value) is str  # pylint: disable=unidiomatic-typecheck


def test_fixture_really_holds_members_and_the_decoded_copy_plain_strings() -> None:
    """Guard for the next test: one side has Enum members, the other exactly ``str``."""
    with_members = Catalogue.build(_mechs_with_members())
    plain = Catalogue.from_json(with_members.to_json())
    statuses = {mech.status for mech in with_members.mechs}
    assert statuses == set(MechStatus)
    for mech in with_members.mechs:
        assert isinstance(mech.status, MechStatus)
        assert isinstance(mech.ref.registry_kind, RegistryKind)
    assert any(
        isinstance(p.code, ProblemCode) for m in with_members.mechs for p in m.problems
    )
    for mech in plain.mechs:
        assert _is_plain(mech.status) and _is_plain(mech.ref.registry_kind)
        assert all(_is_plain(p.code) for p in mech.problems)


def test_members_and_plain_strings_give_the_same_catalogue_digest() -> None:
    """Digest, canonical JSON, equality, hashing and pickling do not see the Enums."""
    with_members = Catalogue.build(_mechs_with_members())
    plain = Catalogue.from_json(with_members.to_json())
    assert plain.digest() == with_members.digest()
    assert plain.canonical_bytes() == with_members.canonical_bytes()
    assert plain == with_members and hash(plain.mechs) == hash(with_members.mechs)
    assert pickle.loads(pickle.dumps(with_members)).digest() == plain.digest()
    assert [m.ref.key for m in plain.mechs] == [m.ref.key for m in with_members.mechs]


@pytest.mark.parametrize("vocabulary", VOCABULARIES, ids=lambda v: v.__name__)
def test_every_member_reads_as_its_value(vocabulary: Type[Enum]) -> None:
    """Check that str(), f-strings, JSON and canonical JSON give the value.

    A ``(str, Enum)`` would not: since Python 3.11 it formats as ``Class.MEMBER``, which
    would change ``MechRef.key``.

    :param vocabulary: the Enum class under test.
    """
    for member in vocabulary:
        value = member.value
        assert member == value and hash(member) == hash(value)
        assert str(member) == f"{member}" == value
        assert json.dumps({member: [member]}) == json.dumps({value: [value]})
        assert canonical_text([member]) == canonical_text([value])
        assert vocabulary(value) is member


def test_a_wrong_word_is_refused() -> None:
    """Looking up a word that is not in a vocabulary raises, naming the word."""
    with pytest.raises(ValueError, match="olas_agent"):
        RegistryKind("olas_agent")
    with pytest.raises(ValueError, match="OK"):
        MechStatus("OK")
    assert "olas_agent" not in REGISTRY_KINDS


def test_the_word_lists_are_plain_strings_a_cli_choice_accepts() -> None:
    """REGISTRY_KINDS / MECH_STATUSES hold plain values, as before the Enums.

    click's ``Choice`` reads an Enum member by its *name* (``OLAS_AGENT``), so a tuple of
    members made ``--kind olas_agent_registry`` a usage error; plain values keep it valid.
    """
    for words, vocabulary in (
        (REGISTRY_KINDS, RegistryKind),
        (MECH_STATUSES, MechStatus),
    ):
        assert [type(word) for word in words] == [str] * len(vocabulary)
        assert list(words) == [member.value for member in vocabulary]
        choice = click.Choice(words)
        for word in words:
            assert choice.convert(word, None, None) == word
        with pytest.raises(click.BadParameter):
            choice.convert(list(vocabulary)[0].name, None, None)
