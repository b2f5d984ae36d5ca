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

"""Reading a manifest argument (file, CID, digest) and parsing it as every command does."""

from typing import Optional, Tuple

from mech_catalogue_core.manifest.documents import (
    check_document,
)
from mech_catalogue_core.manifest.validation import (
    decode_json,
)
from mech_catalogue_core.model.catalogue import (
    Manifest,
)
from mech_catalogue_core.model.problems import (
    Problem,
)
from mech_catalogue_core.model.vocabulary import (
    DocumentKind,
)

from ..output import CliFailure
from ..sources import Loaded, load
from .options import INVALID_MANIFEST


def parse_loaded(loaded: Loaded) -> Tuple[Optional[Manifest], Tuple[Problem, ...]]:
    """Strict decode, schema check, and shape parsing; problems from all three."""
    manifest, problems, _ = parse_with_kind(loaded)
    return manifest, problems


def parse_with_kind(
    loaded: Loaded,
) -> Tuple[Optional[Manifest], Tuple[Problem, ...], DocumentKind]:
    """Like :func:`_parse`, also naming the kind of document the parser read.

    Every command reads a document the same way (``manifest.documents.check_document``):
    registry NFT metadata, tools as JSON in a ``description`` and a single tool object
    are checked as what they are, not against the manifest schema they do not follow.

    :param loaded: the document's bytes and origin.
    :return: (the manifest or None, every problem, the document kind).
    """
    decoded = decode_json(loaded.data)
    if not decoded.ok:
        return None, tuple(decoded.problems), DocumentKind.MANIFEST
    checked = check_document(decoded.value)
    return checked.manifest, checked.problems, checked.kind


def load_manifest(
    source: str, gateway: str, timeout: float
) -> Tuple[Loaded, Manifest, Tuple[Problem, ...]]:
    """Load a manifest argument and parse it; one no reader can read is a failure.

    :param source: a file path, CID or on-chain digest.
    :param gateway: the IPFS gateway for CIDs and digests.
    :param timeout: seconds per IPFS request.
    :return: ``(what was loaded, the manifest, its problems)``.
    :raises CliFailure: ``invalid_manifest`` when nothing readable is there.
    """
    loaded = load(source, gateway, timeout)
    manifest, problems = parse_loaded(loaded)
    if manifest is None:
        raise CliFailure(
            INVALID_MANIFEST,
            f"{loaded.origin} is not a usable mech manifest.",
            problems,
        )
    return loaded, manifest, problems
