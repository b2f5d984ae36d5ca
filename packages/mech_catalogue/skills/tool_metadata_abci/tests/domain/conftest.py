"""Fixtures of the domain tests."""

from typing import Iterator

import pytest

from packages.mech_catalogue.skills.tool_metadata_abci.tests.domain.kubo import (
    Kubo,
    kubo_repo,
)


@pytest.fixture(scope="session")
def kubo() -> Iterator[Kubo]:
    """Provide a throwaway kubo repository (session-wide; no daemon).

    :yield: the repository.
    """
    yield from kubo_repo()
