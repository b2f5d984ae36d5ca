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

"""Prepare runnable agent folders from the repository's packages, without the IPFS registry.

``autonomy fetch --local`` checks every package against its fingerprint and every
dependency against its hash. The repository's own packages are locked by the lead at the
end of a change, so during development they may not be; the packages are therefore copied
into a private registry under the work folder and locked there with ``autonomy packages
lock`` (the repository's ``packages.json`` is never touched). The fetched agent is cached
by a digest of the package sources, so a warm start skips lock and fetch.
"""

import hashlib
import os
import shutil
import subprocess  # nosec B404: runs the installed aea/autonomy CLIs only
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from aea.crypto.helpers import make_certificate
from eth_account import Account

from scripts.toolchain import REPO_ROOT

AGENT_PUBLIC_ID = "mech_catalogue/tool_metadata"
#: the services ``run_local`` can run (``--service``): their agent's name
SERVICES = ("tool_metadata", "requester")
PACKAGES_DIR = REPO_ROOT / "packages"
OWN_AUTHOR = "mech_catalogue"
DIGEST_FILE = ".sources.sha256"
KEY_FILE = "ethereum_private_key.txt"
#: the ACN node key in the agent's p2p_libp2p_client override, and where its certificate goes
ACN_PUBLIC_KEY = "02d3a830c9d6ea1ae91936951430dee11f4662f33118b02190693be835359a9d77"
ACN_CERTIFICATE = ".certs/acn_cosmos_9005.txt"


class WorkspaceError(RuntimeError):
    """A step preparing the agent failed; the message names the command and its output."""


def _cli_env() -> Dict[str, str]:
    env = dict(os.environ)
    # the repository root on PYTHONPATH would shadow the agent's vendor/ packages
    env.pop("PYTHONPATH", None)
    return env


def run_cli(
    args: List[str], cwd: Path, stdin: Optional[str] = None, timeout: float = 300
) -> str:
    """Run an ``aea``/``autonomy`` command of this Python environment.

    :param args: ``["aea", ...]`` or ``["autonomy", ...]``.
    :param cwd: the working folder.
    :param stdin: text fed to the command (answers to prompts).
    :param timeout: seconds before the command is killed.
    :return: its combined output.
    :raises WorkspaceError: when it exits non-zero or times out.
    """
    module = {"aea": "aea.cli", "autonomy": "autonomy.cli"}[args[0]]
    command = [sys.executable, "-m", module, *args[1:]]
    try:
        done = subprocess.run(  # nosec B603
            command,
            cwd=cwd,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=_cli_env(),
            check=False,
        )
    except subprocess.TimeoutExpired as error:
        raise WorkspaceError(
            f"`{' '.join(args)}` did not finish in {timeout:.0f} s"
        ) from error
    output = done.stdout + done.stderr
    if done.returncode != 0:
        raise WorkspaceError(
            f"`{' '.join(args)}` failed in {cwd} (exit {done.returncode}):\n{output[-3000:]}"
        )
    return output


def sources_digest(packages_dir: Path = PACKAGES_DIR) -> str:
    """Digest of the files :func:`prepare_registry` copies (ours and the synced third-party ones).

    :param packages_dir: the packages folder.
    :return: sha256 hex over sorted relative paths and contents (``__pycache__`` skipped).
    """
    digest = hashlib.sha256()
    third_party = [
        path.relative_to(packages_dir)
        for path in packages_dir.rglob("*")
        if path.is_file()
        and "__pycache__" not in path.parts
        and path.relative_to(packages_dir).parts[0] != OWN_AUTHOR
    ]
    for relative in sorted(third_party + own_package_files()):
        digest.update(str(relative).encode())
        digest.update((packages_dir / relative).read_bytes())
    return digest.hexdigest()


def own_package_files() -> List[Path]:
    """Files of our packages to run: those git tracks (as they are in the working tree).

    Untracked files (work in progress of a concurrent change) are left out, and so are
    package ``tests/``: they are not part of a running agent, and open-aea checks the
    imports of every module it loads against the package's declared dependencies. Outside
    a git checkout every file is taken.

    :return: paths relative to ``packages/``.
    """
    own = PACKAGES_DIR / OWN_AUTHOR
    try:
        listed = subprocess.run(  # nosec B603 B607
            ["git", "ls-files", "-z", "--", str(own)],
            cwd=REPO_ROOT,
            capture_output=True,
            check=True,
        ).stdout.decode()
        files = [REPO_ROOT / name for name in listed.split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        files = [path for path in own.rglob("*") if path.is_file()]
    return [
        path.relative_to(PACKAGES_DIR)
        for path in files
        if path.is_file()
        and "tests" not in path.relative_to(own).parts[2:3]
        and "__pycache__" not in path.parts
    ]


def prepare_registry(work_dir: Path) -> Path:
    """Copy ``packages/`` into ``work_dir/registry/packages`` and lock the copy.

    Ours are copied as :func:`own_package_files` lists them. A failing ``autonomy
    packages lock`` raises :class:`WorkspaceError` (from :func:`run_cli`).

    :param work_dir: the run's work folder.
    :return: the locked packages folder, usable as ``--registry-path``.
    """
    registry = work_dir / "registry"
    if registry.exists():
        shutil.rmtree(registry)
    registry.mkdir(parents=True)
    target = registry / "packages"
    shutil.copytree(
        PACKAGES_DIR,
        target,
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", OWN_AUTHOR),
    )
    for relative in own_package_files():
        destination = target / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PACKAGES_DIR / relative, destination)
    # new packages are ours: answer `dev` to every prompt
    run_cli(["autonomy", "packages", "lock"], cwd=registry, stdin="dev\n" * 50)
    return registry / "packages"


def fetch_local(registry: Path, kind: str, public_id: str, destination: Path) -> Path:
    """``autonomy fetch --local`` of an agent or a service from a locked registry.

    :param registry: from :func:`prepare_registry`.
    :param kind: ``--agent`` or ``--service``.
    :param public_id: e.g. ``mech_catalogue/tool_metadata``.
    :param destination: the folder to create (its parent must exist).
    :return: ``destination``.
    """
    run_cli(
        ["autonomy", "--registry-path", str(registry), "fetch", "--local"]
        + [kind, public_id, "--alias", destination.name],
        cwd=destination.parent,
    )
    return destination


def new_key() -> Tuple[str, str]:
    """A fresh Ethereum key.

    :return: ``(address, private key as 0x hex)``.
    """
    account = Account.create()  # pylint: disable=no-value-for-parameter
    key = account.key.hex()
    return str(account.address), key if key.startswith("0x") else "0x" + key


def agent_template(work_dir: Path, service: str = SERVICES[0]) -> Path:
    """A fetched agent (no key), refreshed only when the package sources changed.

    :param work_dir: the run's work folder.
    :param service: one of :data:`SERVICES` (the agent ``mech_catalogue/<service>``).
    :return: the template agent folder ``work_dir/fetched/<service>``
        (:class:`WorkspaceError` when locking or fetching fails).
    :raises WorkspaceError: for a service not in :data:`SERVICES`.
    """
    if service not in SERVICES:
        raise WorkspaceError(
            f"no service {service!r} to run: choose one of {', '.join(SERVICES)}"
        )
    template = work_dir / "fetched" / service
    digest = sources_digest()
    if (template / DIGEST_FILE).exists() and (
        template / DIGEST_FILE
    ).read_text() == digest:
        return template
    if template.exists():
        shutil.rmtree(template)
    template.parent.mkdir(parents=True, exist_ok=True)
    registry = prepare_registry(work_dir)
    fetch_local(
        registry, "--agent", f"{OWN_AUTHOR}/{service}", template.parent / template.name
    )
    # name the key file in the config once; each agent gets its own key file (make_agent)
    (template / KEY_FILE).write_text("0x" + "11" * 32)
    run_cli(["aea", "add-key", "ethereum", KEY_FILE], cwd=template)
    (template / KEY_FILE).unlink()
    (template / DIGEST_FILE).write_text(digest)
    return template


def make_agent(
    template: Path, agent_dir: Path, private_key: Optional[str] = None
) -> str:
    """Copy the template into ``agent_dir``, give it a key and issue its ACN certificate.

    The ACN client's certificate request is part of the agent's configuration even when
    the client is left out of the run, and open-aea checks it at start-up. The certificate
    is made in-process with open-aea's ``make_certificate`` (what ``aea issue-certificates``
    does, minus ~5 s of CLI start-up per agent).

    :param template: from :func:`agent_template` (its config already names ``KEY_FILE``).
    :param agent_dir: the agent's folder (replaced).
    :param private_key: 0x hex; a fresh key when None.
    :return: the agent's address.
    """
    if agent_dir.exists():
        shutil.rmtree(agent_dir)
    shutil.copytree(template, agent_dir)
    if private_key is None:
        address, private_key = new_key()
    else:
        # pylint: disable-next=no-value-for-parameter  # eth_account classmethod
        address = str(Account.from_key(private_key).address)
    (agent_dir / KEY_FILE).write_text(private_key)
    acn_key = os.environ.get("ACN_PUBLIC_KEY", ACN_PUBLIC_KEY)
    make_certificate(
        "ethereum",
        str(agent_dir / KEY_FILE),
        acn_key.encode("ascii"),
        str(agent_dir / ACN_CERTIFICATE),
    )
    return address
