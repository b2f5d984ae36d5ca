"""The problem registry (problems.CODE_DESCRIPTIONS) holds every code the domain modules emit."""

from typing import Any, Dict

import pytest

from packages.mech_catalogue.skills.tool_metadata_abci.domain.catalogue import fetching
from packages.mech_catalogue.skills.tool_metadata_abci.domain.chain import registry
from packages.mech_catalogue.skills.tool_metadata_abci.domain.derive import (
    derive,
    generate,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.model import problems as P
from packages.mech_catalogue.skills.tool_metadata_abci.domain.publish import publish

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
    """Each code constant of an emitting module equals a problems.py constant that has a sentence."""
    for own, registered in EMITTED[module].items():
        code = getattr(module, own)
        assert getattr(P, registered) == code, (own, code)
        assert P.CODE_DESCRIPTIONS.get(code), code


def test_derive_sentences_match_the_registry() -> None:
    """The table of derive.py says the same as the registry (one sentence per code)."""
    for code, sentence in derive.CODE_DESCRIPTIONS_DERIVE.items():
        assert P.CODE_DESCRIPTIONS[code] == sentence


def test_every_code_constant_of_problems_is_registered() -> None:
    """Every lower-case code constant of problems.py has a sentence, and codes are unique."""
    constants = {
        name: value
        for name, value in vars(P).items()
        if name.isupper()
        and isinstance(value, str)
        and value.islower()
        and not name.startswith("SEVERITY_")
    }
    assert set(constants.values()) == set(P.CODE_DESCRIPTIONS)
    assert len(set(constants.values())) == len(constants)
