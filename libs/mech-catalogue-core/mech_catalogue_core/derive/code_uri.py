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

"""Typed arguments derived from a tool package on IPFS (a component's ``code_uri``).

Path (issue #12 item 3): component NFT metadata (JSON: ``name``, ``description``,
``code_uri``, ``image``, ``attributes``) -> ``code_uri`` = ``ipfs://<CID>`` of the package
directory as ``autonomy push`` / ``ipfs add -r`` store it -> the UnixFS directory listing
-> ``component.yaml`` -> its ``entry_point`` module and the sibling modules of the same
package that module imports -> :func:`.package.derive_files` (ast only, never executed).

Everything is read as raw IPFS blocks, each checked against the sha2-256 digest of the
CID it was asked for before it is decoded (by :mod:`..ipfs.dag_pb`), so a gateway cannot
substitute code.

The reading is a generator (:func:`package_deriver`): it yields the CIDs of the blocks it
needs and is sent ``{cid: bytes or None}``; whoever does I/O (the skill's behaviour through
the gateway, the CLI through kubo) drives it. :class:`CodeCaps` bounds every read.
Directories sharded as HAMT (over ~10,000 entries) are refused as over the caps.
"""

import ast
import json
import re
from dataclasses import dataclass, field
from hashlib import sha256
from typing import Dict, Generator, List, Optional, Tuple

from mech_catalogue_core.derive.package import (
    derive_files,
)
from mech_catalogue_core.derive.results import (
    DerivedPackage,
    DeriveError,
)
from mech_catalogue_core.ipfs.cid import (
    RAW,
    CidError,
    cid_to_digest,
    digest_to_cid,
    strip_cid,
)
from mech_catalogue_core.ipfs.dag_pb import (
    UNIXFS_DIRECTORY,
    UNIXFS_FILE,
    UNIXFS_HAMT,
    UNIXFS_RAW,
    DagPbError,
    DagPbNode,
    decode_node,
)
from mech_catalogue_core.manifest.validation import (
    nesting_depth,
)
from mech_catalogue_core.model.problems import (
    CODE_FETCH_FAILED,
    CODE_NOT_A_DIRECTORY,
    CODE_OVER_CAPS,
    CODE_URI_MISSING,
    DERIVER_FAILED,
    Problem,
    error,
)

#: what :func:`package_deriver` yields (block CIDs) and is sent (cid -> block or None)
BlockRequest = List[str]
BlockReply = Dict[str, Optional[bytes]]

#: nesting levels of a component's NFT metadata read for its ``code_uri`` (checked before
#: ``json.loads``, whose recursion limit is not the same on every agent's stack)
MAX_METADATA_DEPTH = 64

_IMPORT_FROM_PACKAGE = re.compile(r"^packages\.[A-Za-z0-9_]+\.customs\.[A-Za-z0-9_]+$")


@dataclass(frozen=True)
class CodeCaps:
    """Bounds on what is read from a component's code (documented in docs/manifest-spec.md).

    :param max_file_bytes: largest ``component.yaml`` or module read (bytes).
    :param max_files: most entries of one directory listing, and most files read per package.
    :param max_depth: most directory levels walked below ``code_uri`` to reach
        ``component.yaml`` (``autonomy push`` wraps the package in one directory).
    :param max_packages: most components followed per mech.
    :param max_block_bytes: largest block accepted (kubo's chunks are 256 KiB).
    :param max_blocks: most blocks read for one package (directories, files, leaves).
    """

    max_file_bytes: int = 256 * 1024
    max_files: int = 64
    max_depth: int = 2
    max_packages: int = 8
    max_block_bytes: int = 1024 * 1024
    max_blocks: int = 256


class CodeReadError(ValueError):
    """Raised inside the reader when the code cannot be read; carries the problem.

    :param problem: what failed, for which CID, and what to do.
    """

    def __init__(self, problem: Problem) -> None:
        """Initialise.

        :param problem: the reason.
        """
        super().__init__(problem.message)
        self.problem = problem


@dataclass(frozen=True)
class CodeDerivation:
    """What one ``code_uri`` gave: the derived package or why none.

    :param cid: the package directory's CID (as in ``code_uri``, normalised to CIDv1).
    :param package: the derivation, None when it failed.
    :param problems: why it failed, or the derivation's warnings.
    :param blocks: how many blocks were read (for cost reports).
    """

    cid: str
    package: Optional[DerivedPackage] = None
    problems: Tuple[Problem, ...] = field(default=())
    blocks: int = 0

    def to_json(self) -> str:
        """Serialise for the content-addressed cache.

        :return: JSON text (the package as :meth:`.DerivedPackage.to_dict`).
        """
        return json.dumps(
            {
                "cid": self.cid,
                "package": None if self.package is None else self.package.to_dict(),
                "problems": [p.to_dict() for p in self.problems],
                "blocks": self.blocks,
            },
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str) -> "CodeDerivation":
        """Read back :meth:`to_json`.

        :param text: the JSON.
        :return: the derivation.
        """
        data = json.loads(text)
        package = data["package"]
        return cls(
            cid=data["cid"],
            package=None if package is None else DerivedPackage.from_dict(package),
            problems=tuple(Problem.from_dict(p) for p in data["problems"]),
            blocks=int(data["blocks"]),
        )


def code_uri_cid(metadata: bytes, where: str) -> str:
    """The package directory CID a component's NFT metadata points to.

    :param metadata: the metadata JSON bytes (verified against the registry hash).
    :param where: names the component in messages (e.g. ``component 3``).
    :return: the CID (CIDv1 base32).
    :raises CodeReadError: CODE_URI_MISSING when there is no ``ipfs://`` code_uri.
    """
    if nesting_depth(metadata, MAX_METADATA_DEPTH) > MAX_METADATA_DEPTH:
        raise CodeReadError(
            error(
                CODE_URI_MISSING,
                f"{where}: its metadata nests deeper than {MAX_METADATA_DEPTH} levels; "
                "it is not read.",
            )
        )
    try:
        document = json.loads(metadata.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise CodeReadError(
            error(CODE_URI_MISSING, f"{where}: its metadata is not JSON ({exc}).")
        ) from exc
    uri = document.get("code_uri") if isinstance(document, dict) else None
    if not isinstance(uri, str) or not uri.startswith("ipfs://"):
        raise CodeReadError(
            error(
                CODE_URI_MISSING,
                f"{where}: its metadata has no `code_uri` of the form ipfs://CID; "
                "set it to the tool package directory's CID.",
                "/code_uri",
            )
        )
    return normalise_cid(uri, where)


def normalise_cid(text: str, where: str) -> str:
    """Return a CID (bare, ``ipfs://``, ``/ipfs/``) as CIDv1 base32.

    :param text: the CID text.
    :param where: names its origin in messages.
    :return: the CIDv1.
    :raises CodeReadError: CODE_URI_MISSING when it is not a dag-pb/raw sha2-256 CID.
    """
    try:
        codec, digest = cid_to_digest(strip_cid(text.strip()).split("/", 1)[0])
    except CidError as exc:
        raise CodeReadError(
            error(CODE_URI_MISSING, f"{where}: {exc.problem.message}", "/code_uri")
        ) from exc
    return digest_to_cid(digest, codec)


# --- the reader ---------------------------------------------------------------------
class _Reader:
    """Fetches and checks blocks for one package (state of :func:`package_deriver`)."""

    def __init__(self, root: str, caps: CodeCaps) -> None:
        self.root = root
        self.caps = caps
        self.blocks = 0

    def block(self, cid: str, what: str) -> Generator[BlockRequest, BlockReply, bytes]:
        """Fetch one block and check it hashes to its CID (``what`` names it in messages)."""
        if self.blocks >= self.caps.max_blocks:
            raise self.fault(
                CODE_OVER_CAPS,
                f"reading {what} needs more than {self.caps.max_blocks} blocks",
            )
        reply = yield [cid]
        self.blocks += 1
        data = reply.get(cid)
        if data is None:
            raise self.fault(CODE_FETCH_FAILED, f"{what} ({cid}) could not be fetched")
        if len(data) > self.caps.max_block_bytes:
            raise self.fault(
                CODE_OVER_CAPS,
                f"{what} ({cid}) is a block over {self.caps.max_block_bytes} bytes",
            )
        _, digest = cid_to_digest(cid)
        if sha256(data).hexdigest() != digest[2:]:
            raise self.fault(
                CODE_FETCH_FAILED,
                f"{what}: the bytes served for {cid} do not hash to it",
            )
        return data

    def node(
        self, cid: str, what: str
    ) -> Generator[BlockRequest, BlockReply, DagPbNode]:
        """Fetch and decode one block (a raw-codec block is file content)."""
        data = yield from self.block(cid, what)
        if cid_to_digest(cid)[0] == RAW:
            return DagPbNode(UNIXFS_RAW, data, len(data), ())
        try:
            return decode_node(data)
        except DagPbError as exc:
            raise self.fault(
                CODE_NOT_A_DIRECTORY, f"{what} ({cid}) is not a UnixFS node ({exc})"
            ) from exc

    def listing(
        self, cid: str, what: str
    ) -> Generator[BlockRequest, BlockReply, Dict[str, str]]:
        """Fetch a directory: entry name -> CID, within the caps."""
        node = yield from self.node(cid, what)
        if node.unixfs_type == UNIXFS_HAMT:
            raise self.fault(CODE_OVER_CAPS, f"{what} is a sharded (huge) directory")
        if node.unixfs_type != UNIXFS_DIRECTORY:
            raise self.fault(
                CODE_NOT_A_DIRECTORY,
                f"{what} ({cid}) is not a directory; code_uri must be the CID of the "
                "tool package directory (ipfs add -r)",
            )
        if len(node.links) > self.caps.max_files:
            raise self.fault(
                CODE_OVER_CAPS,
                f"{what} lists {len(node.links)} entries, over the cap of {self.caps.max_files}",
            )
        return dict(node.links)

    def file(self, cid: str, what: str) -> Generator[BlockRequest, BlockReply, bytes]:
        """Fetch a file's bytes (its leaves, one level), within the byte cap."""
        node = yield from self.node(cid, what)
        if node.unixfs_type not in (UNIXFS_RAW, UNIXFS_FILE):
            raise self.fault(CODE_NOT_A_DIRECTORY, f"{what} ({cid}) is not a file")
        if node.filesize > self.caps.max_file_bytes:
            raise self.fault(
                CODE_OVER_CAPS,
                f"{what} has {node.filesize} bytes, over the cap of {self.caps.max_file_bytes}",
            )
        parts = [node.data]
        for _, leaf in node.links:
            child = yield from self.node(leaf, what)
            if child.links or child.unixfs_type not in (UNIXFS_RAW, UNIXFS_FILE):
                raise self.fault(
                    CODE_OVER_CAPS, f"{what} is deeper than one chunk level"
                )
            parts.append(child.data)
            if sum(len(p) for p in parts) > self.caps.max_file_bytes:
                raise self.fault(
                    CODE_OVER_CAPS,
                    f"{what} is over the cap of {self.caps.max_file_bytes} bytes",
                )
        return b"".join(parts)

    def fault(self, code: str, text: str) -> CodeReadError:
        """Build the error for a fault of this package.

        :param code: the problem code.
        :param text: what failed.
        :return: the error to raise.
        """
        return CodeReadError(
            error(code, f"ipfs://{self.root}: {text}; nothing was derived from it.")
        )


def package_deriver(
    cid: str, caps: CodeCaps = CodeCaps()
) -> Generator[BlockRequest, BlockReply, CodeDerivation]:
    """Read a tool package directory from IPFS, block by block, and derive its arguments.

    Drive it with ``request = next(gen)`` then ``request = gen.send(reply)``, where
    ``reply`` maps each requested CID to its raw block bytes (None when it could not be
    fetched), until ``StopIteration.value`` holds the :class:`CodeDerivation`. It never
    raises for bad content: faults (not a directory, over the caps, missing entry point,
    a module that does not parse, a block that does not hash to its CID) are the
    derivation's problems.

    :param cid: the package directory's CID (``code_uri`` without ``ipfs://``).
    :param caps: the bounds.
    :yield: lists of block CIDs to fetch.
    :return: the derivation.
    """
    reader = _Reader(cid, caps)
    try:
        files = yield from _package_files(reader, cid)
        package = derive_files(files, f"ipfs://{cid}")
    except (CodeReadError, DeriveError) as exc:
        return CodeDerivation(cid, None, (exc.problem,), reader.blocks)
    except Exception as exc:  # pylint: disable=broad-exception-caught
        # anyone's package reaches this code: a bug in reading it must cost that one
        # package, never the period (an exception here would stop the agent). The
        # exception's type only: its text may differ between agents, which must agree.
        return CodeDerivation(
            cid,
            None,
            (
                error(
                    DERIVER_FAILED,
                    f"ipfs://{cid}: the code deriver failed ({type(exc).__name__}); "
                    "nothing was derived from it. Report this package.",
                ),
            ),
            reader.blocks,
        )
    return CodeDerivation(cid, package, package.problems, reader.blocks)


def _package_files(
    reader: _Reader, cid: str
) -> Generator[BlockRequest, BlockReply, Dict[str, bytes]]:
    caps = reader.caps
    listing = yield from reader.listing(cid, "the code_uri")
    depth = 0
    while "component.yaml" not in listing:
        directories = [n for n in listing if "." not in n]
        if depth >= caps.max_depth or len(directories) != 1:
            raise reader.fault(
                CODE_NOT_A_DIRECTORY,
                f"no component.yaml within {caps.max_depth} directory levels",
            )
        depth += 1
        listing = yield from reader.listing(
            listing[directories[0]], f"directory {directories[0]}"
        )
    files = {
        "component.yaml": (
            yield from reader.file(listing["component.yaml"], "component.yaml")
        )
    }
    entry = _entry_point_name(files["component.yaml"])
    if entry in listing:
        files[entry] = yield from reader.file(listing[entry], entry)
        for module in _sibling_imports(files[entry], listing):
            if len(files) >= caps.max_files:
                break
            files[module] = yield from reader.file(listing[module], module)
    return files


def _entry_point_name(component: bytes) -> str:
    match = re.search(rb"^entry_point:\s*['\"]?([^'\"\s#]+)", component, re.MULTILINE)
    return match.group(1).decode("utf-8", "replace").lstrip("./") if match else ""


def _sibling_imports(source: bytes, listing: Dict[str, str]) -> List[str]:
    """Module files of the same package the entry point imports (``from .x import``...)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []  # derive_files reports the syntax error
    found: List[str] = []
    for node in ast.walk(tree):
        names: List[str] = []
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level == 1 or _IMPORT_FROM_PACKAGE.match(base.rsplit(".", 1)[0]):
                names.append(base.rsplit(".", 1)[-1] if base else "")
                if node.level == 1 and not base:
                    names.extend(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            names.extend(
                a.name.rsplit(".", 1)[-1]
                for a in node.names
                if _IMPORT_FROM_PACKAGE.match(a.name.rsplit(".", 1)[0])
            )
        for name in names:
            if name and f"{name}.py" in listing and f"{name}.py" not in found:
                found.append(f"{name}.py")
    return found
