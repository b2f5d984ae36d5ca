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

"""``derive`` on a tool package directory on IPFS: a CID or ``ipfs://<CID>``.

Reads the directory block by block through an IPFS gateway (``/ipfs/<cid>?format=raw``);
every block is checked against its CID by
:func:`packages.mech_catalogue.skills.tool_metadata_abci.domain.derive.code_uri.package_deriver`.
"""

from pathlib import Path
from typing import Dict, Optional

import requests

from packages.mech_catalogue.skills.tool_metadata_abci.domain.derive.code_uri import (
    CodeCaps,
    CodeDerivation,
    CodeReadError,
    normalise_cid,
    package_deriver,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.ipfs.cid import (
    looks_like_cid,
    strip_cid,
)


def is_code_uri(source: str) -> bool:
    """Tell whether a ``derive`` argument names IPFS content rather than a folder.

    :param source: the argument.
    :return: True for ``ipfs://...`` or a bare CID that is not an existing path.
    """
    if source.startswith(("ipfs://", "/ipfs/")):
        return True
    return not Path(source).exists() and looks_like_cid(strip_cid(source))


def derive_code_uri(source: str, gateway: str, timeout: float) -> CodeDerivation:
    """Derive the arguments of the tool package directory at a CID.

    :param source: a CID, ``ipfs://<CID>`` or ``/ipfs/<CID>``.
    :param gateway: the gateway base URL.
    :param timeout: seconds per block request.
    :return: the derivation (its problems say what failed); ``normalise_cid``'s
        CodeReadError propagates when ``source`` is not a CID.
    """
    cid = normalise_cid(source, source)
    caps = CodeCaps()
    deriver = package_deriver(cid, caps)
    try:
        request = next(deriver)
        while True:
            reply: Dict[str, Optional[bytes]] = {
                c: _block(gateway, c, timeout, caps.max_block_bytes) for c in request
            }
            request = deriver.send(reply)
    except StopIteration as done:
        return done.value


def _block(gateway: str, cid: str, timeout: float, cap: int) -> Optional[bytes]:
    try:
        with requests.get(
            f"{gateway.rstrip('/')}/ipfs/{cid}?format=raw",
            headers={"Accept": "application/vnd.ipld.raw"},
            timeout=timeout,
            stream=True,
        ) as response:
            if response.status_code != 200:
                return None
            data = response.raw.read(cap + 1)
            return data if len(data) <= cap else None
    except requests.RequestException:
        return None


__all__ = ["CodeReadError", "derive_code_uri", "is_code_uri"]
