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

"""Reading a manifest argument (file, CID, digest) and parsing it as every command does.

An argument that is no manifest at all is refused in one line saying what it is and what
was expected: a tool package (its folder or its ``component.yaml``, which ``generate``
turns into a manifest) or a file that is not JSON (YAML, Markdown, an empty file).
"""

import shlex
from pathlib import Path
from typing import NoReturn, Optional, Tuple

from mech_catalogue_core.derive.package import (
    MAX_COMPONENT_YAML_BYTES,
    parse_component,
)
from mech_catalogue_core.derive.results import (
    DeriveError,
)
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
    error,
)
from mech_catalogue_core.model.references import (
    MANIFEST_SPEC_URL,
)
from mech_catalogue_core.model.vocabulary import (
    DocumentKind,
)

from ..output import CliFailure
from ..sources import FILE_NOT_READABLE, Loaded, load
from .options import INVALID_MANIFEST, NOT_A_MANIFEST, TOOL_PACKAGE_NOT_MANIFEST

#: the file naming a tool package (open-aea's component configuration), which
#: ``derive`` and ``generate`` read
COMPONENT_FILE = "component.yaml"
#: what may precede a JSON document's first ``{`` or ``[``: a UTF-8 byte order mark and
#: JSON's own whitespace (RFC 8259 section 2)
_BEFORE_JSON = b"\xef\xbb\xbf \t\r\n"


def load_source(source: str, gateway: str, timeout: float) -> Loaded:
    """Load a manifest argument as :func:`sources.load` does, a folder named for what it is.

    :param source: a file path, CID or on-chain digest.
    :param gateway: the IPFS gateway for CIDs and digests.
    :param timeout: seconds per IPFS request.
    :return: what was loaded.
    :raises CliFailure: ``tool_package_not_manifest`` for a folder holding a
        ``component.yaml`` (naming the ``generate`` command that makes its manifest);
        ``file_not_readable`` for another folder; otherwise as :func:`sources.load`.
    """
    folder = Path(source)
    if folder.is_dir():
        if (folder / COMPONENT_FILE).is_file():
            _refuse_tool_package(source, source)
        raise CliFailure(
            FILE_NOT_READABLE,
            f"{source} is a folder, not a manifest file: pass the manifest's JSON file.",
        )
    return load(source, gateway, timeout)


def refuse_non_json(loaded: Loaded) -> None:
    """Refuse, in one line, bytes that do not even begin as JSON (called when decoding failed).

    A document beginning with ``{`` or ``[`` is JSON gone wrong and returns (its decoding
    problem says where). Otherwise: a local ``component.yaml`` that reads as a tool
    package's (``derive.package.parse_component``: a mapping with ``entry_point`` and
    ``callable``) is named as one; anything else is said not to be a manifest.

    :param loaded: the bytes and their origin (a file when ``loaded.cid`` is empty).
    :raises CliFailure: ``tool_package_not_manifest`` or ``not_a_manifest``; nothing for
        text beginning as JSON.
    """
    start = loaded.data.lstrip(_BEFORE_JSON)[:1]
    if start in (b"{", b"["):
        return
    path = Path(loaded.origin)
    if not loaded.cid and _is_tool_component(path, loaded.data):
        _refuse_tool_package(loaded.origin, str(path.parent))
    what = "file" if not loaded.cid else "document"
    message = (
        f"{loaded.origin} is not a manifest: a mech manifest is a JSON document (an "
        f"object with `tools` and `toolMetadata`, {MANIFEST_SPEC_URL}), and this {what} "
        + ("is empty." if not start else "is not JSON.")
    )
    raise CliFailure(NOT_A_MANIFEST, message, (error(NOT_A_MANIFEST, message),))


def _is_tool_component(path: Path, data: bytes) -> bool:
    """Tell whether ``data``, read from ``path``, is a tool package's ``component.yaml``."""
    if path.name != COMPONENT_FILE or len(data) > MAX_COMPONENT_YAML_BYTES:
        return False
    try:
        parse_component(data, str(path))
    except DeriveError:
        return False
    return True


def _refuse_tool_package(given: str, folder: str) -> NoReturn:
    """Refuse a tool package given where a manifest was expected.

    :param given: the argument as typed (the folder or its ``component.yaml``).
    :param folder: the package's folder, for the ``generate`` command.
    :raises CliFailure: ``tool_package_not_manifest``, naming the exact command that
        makes the package's manifest.
    """
    what = "a tool package" if given == folder else "a tool package's component.yaml"
    message = (
        f"{given} is {what}, not a manifest: `mech-catalogue generate "
        f"{shlex.quote(folder)}` makes its manifest (add `-o manifest.json` to write it "
        "to a file, then check that file)."
    )
    raise CliFailure(
        TOOL_PACKAGE_NOT_MANIFEST, message, (error(TOOL_PACKAGE_NOT_MANIFEST, message),)
    )


def parse_loaded(loaded: Loaded) -> Tuple[Optional[Manifest], Tuple[Problem, ...]]:
    """Strict decode, schema check, and shape parsing; problems from all three."""
    manifest, problems, _ = parse_with_kind(loaded)
    return manifest, problems


def parse_with_kind(
    loaded: Loaded,
) -> Tuple[Optional[Manifest], Tuple[Problem, ...], DocumentKind]:
    """Like :func:`parse_loaded`, also naming the kind of document the parser read.

    Every command reads a document the same way (``manifest.documents.check_document``):
    registry NFT metadata, tools as JSON in a ``description`` and a single tool object
    are checked as what they are, not against the manifest schema they do not follow.

    :param loaded: the document's bytes and origin.
    :return: (the manifest or None, every problem, the document kind). Bytes that do
        not begin as JSON raise :class:`CliFailure` (:func:`refuse_non_json`).
    """
    decoded = decode_json(loaded.data)
    if not decoded.ok:
        refuse_non_json(loaded)
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
    :raises CliFailure: ``invalid_manifest`` when nothing readable is there; as
        :func:`load_source` and :func:`refuse_non_json` for a tool package or non-JSON.
    """
    loaded = load_source(source, gateway, timeout)
    manifest, problems = parse_loaded(loaded)
    if manifest is None:
        raise CliFailure(
            INVALID_MANIFEST,
            f"{loaded.origin} is not a usable mech manifest.",
            problems,
        )
    return loaded, manifest, problems
