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

"""Assert that a contract call reverts with a given Solidity custom error."""

from contextlib import contextmanager
from typing import Iterator

import pytest
from web3 import Web3
from web3.exceptions import ContractLogicError


def error_selector(signature: str) -> str:
    """The 4-byte selector of a custom error, 0x hex.

    :param signature: e.g. ``OperatorOnly(address,address,uint256)``.
    :return: e.g. ``0x10c932fe``.
    """
    return "0x" + Web3.keccak(text=signature)[:4].hex()


@contextmanager
def reverts_with(signature: str) -> Iterator[None]:
    """Expect the block to raise a revert whose data starts with the error's selector.

    :param signature: the custom error, e.g. ``UnauthorizedAccount(address)``.
    :yield: nothing.
    """
    with pytest.raises(ContractLogicError) as caught:
        yield
    data = caught.value.data if isinstance(caught.value.data, str) else ""
    assert data.startswith(
        error_selector(signature)
    ), f"expected {signature}, got revert data {caught.value.data!r}"
