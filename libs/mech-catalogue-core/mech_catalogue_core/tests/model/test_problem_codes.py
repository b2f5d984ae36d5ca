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

"""Problem codes are defined once (problems.ProblemCode); every emitted code has a sentence."""

from typing import Any, Dict

import pytest
from mech_catalogue_core.catalogue import fetching
from mech_catalogue_core.chain import registry
from mech_catalogue_core.derive import (
    derive,
    generate,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.publish import publish

#: module -> {its constant name: the problems.py constant name holding the same code}
EMITTED: Dict[Any, Dict[str, str]] = {
    fetching: {
        name: name
        for name in (
            "FETCH_FAILED",
            "REGISTRY_READ_FAILED",
            "KEPT_LAST_GOOD",
            "MANIFEST_REJECTED",
            "PARSER_FAILED",
        )
    },
    registry: {
        "READ_CALL_FAILED": "REGISTRY_CALL_FAILED",
        "READ_UNDECODABLE": "REGISTRY_RETURN_UNDECODABLE",
    },
    derive: {name.upper(): name.upper() for name in derive.CODE_DESCRIPTIONS_DERIVE},
    generate: {
        name: name
        for name in (
            "INVALID_OVERRIDES",
            "UNKNOWN_OVERRIDE_TOOL",
            "UNKNOWN_OVERRIDE_ARGUMENT",
            "DUPLICATE_TOOL_ACROSS_PACKAGES",
            "GENERATED_MANIFEST_INVALID",
        )
    },
    publish: {
        name: "PUBLISH_" + name
        for name in (
            "INVALID_MANIFEST",
            "IPFS_UNAVAILABLE",
            "UPLOAD_MISMATCH",
            "READBACK_MISMATCH",
            "RPC_UNAVAILABLE",
            "MECH_NOT_FOUND",
            "NOT_AUTHORISED",
            "TRANSACTION_FAILED",
            "NOT_CONFIRMED",
            "INVALID_TARGET",
        )
    },
}


@pytest.mark.parametrize(
    "module", list(EMITTED), ids=lambda m: m.__name__.split(".")[-1]
)
def test_emitted_codes_are_registered(module: Any) -> None:
    """Each code constant of an emitting module IS a ProblemCode member (not an equal copy)."""
    for own, registered in EMITTED[module].items():
        code = getattr(module, own)
        assert isinstance(code, P.ProblemCode), (own, code)
        assert code is getattr(P, registered) is P.ProblemCode[registered], own
        assert P.CODE_DESCRIPTIONS.get(code), code


def test_derive_sentences_match_the_registry() -> None:
    """The table of derive.py says the same as the registry (one sentence per code)."""
    for code, sentence in derive.CODE_DESCRIPTIONS_DERIVE.items():
        assert P.CODE_DESCRIPTIONS[code] == sentence


def test_every_code_constant_of_problems_is_registered() -> None:
    """Every ProblemCode has a sentence, nothing else does, and each module-level name is a member."""
    assert set(P.CODE_DESCRIPTIONS) == set(P.ProblemCode)
    assert len(P.CODE_DESCRIPTIONS) == len(
        P.ProblemCode
    )  # no two members share a value
    constants = {
        name: value
        for name, value in vars(P).items()
        if name.isupper()
        and isinstance(value, str)
        and value.islower()
        and not name.startswith("SEVERITY_")
    }
    assert constants and all(
        value is P.ProblemCode[name] for name, value in constants.items()
    ), "a module-level code in problems.py that is not a ProblemCode member"


def test_no_module_defines_a_code_as_a_plain_string() -> None:
    """No emitting module holds a code string of its own (a second definition could drift)."""
    codes = {code.value for code in P.ProblemCode}
    for module in EMITTED:
        strays = {
            name
            for name, value in vars(module).items()
            if name.isupper()
            and isinstance(value, str)
            and not isinstance(value, P.ProblemCode)
            and value in codes
        }
        assert not strays, (module.__name__, strays)
