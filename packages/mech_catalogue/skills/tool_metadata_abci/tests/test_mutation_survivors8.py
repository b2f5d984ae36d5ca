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

"""Behaviours no test held, found by the eighth session's mutation run (docs/testing.md).

How a reply of the ``valory/ipfs`` connection is read (status, failure text), the code of
and the code of the "34-byte multihash" digest error.
"""

from types import SimpleNamespace
from typing import Any

import pytest
from mech_catalogue_core.ipfs.cid import (
    CidError,
    normalise_digest,
)
from mech_catalogue_core.model import problems as P

from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.fetch_manifests import (
    FetchManifestsBehaviour,
)
from packages.valory.protocols.ipfs import IpfsMessage


def ipfs_reply(performative: IpfsMessage.Performative, **fields: Any) -> IpfsMessage:
    """An IPFS connection's reply.

    :param performative: FILES or ERROR.
    :param fields: its fields.
    :return: the message.
    """
    return IpfsMessage(
        performative=performative,
        dialogue_reference=("1", "2"),
        message_id=2,
        target=1,
        **fields,
    )


def test_an_ipfs_connections_reply_reads_as_a_status() -> None:
    """Files are 200 (the gateway health counts a success), an error is no status."""
    read = FetchManifestsBehaviour._reply_status  # pylint: disable=protected-access
    files = ipfs_reply(IpfsMessage.Performative.FILES, files={"a": "{}"})
    error = ipfs_reply(IpfsMessage.Performative.ERROR, reason="gone")
    assert read(files) == (200, None)
    assert read(error) == (None, None)
    assert read(None) == (None, None)


def test_an_ipfs_error_without_reason_says_so() -> None:
    """The failure text of an ERROR reply names its reason, or says none was given; files have none."""
    behaviour = SimpleNamespace(
        params=SimpleNamespace(max_manifest_bytes=100, fetch_timeout_seconds=5.0)
    )
    bare = ipfs_reply(IpfsMessage.Performative.ERROR)
    (
        data,
        failure,
    ) = FetchManifestsBehaviour._reply_bytes(  # pylint: disable=protected-access
        behaviour, bare  # type: ignore[arg-type]
    )
    assert data is None
    assert failure == "IPFS connection answered error: no reason given"
    files = ipfs_reply(IpfsMessage.Performative.FILES, files={"a": "{}"})
    assert FetchManifestsBehaviour._reply_bytes(  # pylint: disable=protected-access
        behaviour, files  # type: ignore[arg-type]
    ) == (b"{}", "")


def test_a_multihash_given_as_a_digest_is_an_invalid_digest() -> None:
    """``0x1220`` + 32 bytes: INVALID_DIGEST, naming the first 12 characters and the fix."""
    digest = "0x1220" + "AB" * 32
    with pytest.raises(CidError) as raised:
        normalise_digest(digest)
    problem = raised.value.problem
    assert problem.code == P.INVALID_DIGEST
    assert problem.message.startswith("0x1220ABABAB... is a 34-byte sha2-256 multihash")
    assert f"use 0x{'ab' * 32}" in problem.message
