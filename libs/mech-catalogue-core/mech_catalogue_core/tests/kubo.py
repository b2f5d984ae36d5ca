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

"""A throwaway kubo repository for computing CIDs with the real ``ipfs`` binary.

``ipfs add --only-hash`` needs an initialised repository but no daemon, so no port is
opened. Tests skip (with the reason) only when the binary is not installed.
"""

import os
import subprocess  # nosec
import tempfile
from pathlib import Path
from typing import Iterator, Optional

import pytest

try:
    from scripts.toolchain import MissingTool, tool_path
except ImportError:  # pragma: no cover - package tests run from the repository root
    tool_path = None  # type: ignore

FALLBACK = Path("/tmp/gobuild/bin/ipfs")  # nosec - where a fresh Go build lands


def ipfs_binary() -> Optional[Path]:
    """Return the kubo binary, or None when it is not installed.

    :return: the kubo binary, or None when it is not installed.
    """
    if tool_path is not None:
        try:
            return tool_path("ipfs")
        except MissingTool:
            pass
    return FALLBACK if FALLBACK.is_file() else None


class Kubo:
    """An initialised, offline kubo repository (IPFS_PATH in a temporary directory)."""

    def __init__(self, binary: Path, repo: Path) -> None:
        """Init.

        :param binary: the ipfs binary.
        :param repo: an empty directory for IPFS_PATH.
        """
        self.binary = binary
        self.env = {**os.environ, "IPFS_PATH": str(repo)}
        self._run("init", "--profile", "test")
        self.files = repo / "files"
        self.files.mkdir()

    def _run(self, *args: str) -> str:
        done = subprocess.run(  # nosec
            [str(self.binary), *args],
            env=self.env,
            capture_output=True,
            check=True,
            timeout=60,
        )
        return done.stdout.decode().strip()

    def cid(self, data: bytes, *flags: str) -> str:
        """``ipfs add --only-hash -Q <flags>`` of ``data``.

        :param data: the file contents.
        :param flags: e.g. ``--cid-version``, ``1``, ``--raw-leaves=false``.
        :return: the root CID kubo prints.
        """
        path = self.files / "f"
        path.write_bytes(data)
        return self._run("add", "--only-hash", "-Q", *flags, str(path))

    def add_directory(self, path: Path, *flags: str) -> str:
        """``ipfs add -r -Q <flags> <path>``: store a directory in the repository.

        :param path: the directory.
        :param flags: e.g. ``--cid-version``, ``1``, ``-w``, ``--chunker=size-512``.
        :return: the root CID kubo prints.
        """
        return self._run("add", "-r", "-Q", *flags, str(path))

    def block(self, cid: str) -> Optional[bytes]:
        """``ipfs block get <cid>`` from the repository (offline), None when absent.

        :param cid: the block's CID.
        :return: its raw bytes, or None.
        """
        done = subprocess.run(  # nosec
            [str(self.binary), "--offline", "block", "get", cid],
            env=self.env,
            capture_output=True,
            check=False,
            timeout=60,
        )
        return done.stdout if done.returncode == 0 else None


def kubo_repo() -> Iterator[Kubo]:
    """Create a :class:`Kubo` in a temporary directory (skips when the binary is missing).

    :yield: the repository, removed afterwards.
    """
    binary = ipfs_binary()
    if binary is None:
        pytest.skip(
            "kubo `ipfs` binary is not installed (run scripts/install_tools.sh); CID tests need it"
        )
    with tempfile.TemporaryDirectory() as tmp:
        yield Kubo(binary, Path(tmp))
