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

"""Deriving from a tool package directory on IPFS, block by block, with the real kubo.

The directories are stored with ``ipfs add -r`` in a throwaway kubo repository and read
back with ``ipfs block get`` (no daemon, no network): the blocks are the ones a gateway
would serve for the same CIDs.
"""

import hashlib
import json
from pathlib import Path
from textwrap import dedent
from typing import Callable, Dict, Generator, List, Optional, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mech_catalogue_core.adapters.directory import DirectoryStore
from mech_catalogue_core.derive import code_uri
from mech_catalogue_core.derive.code_uri import (
    BlockReply,
    BlockRequest,
    CodeCaps,
    CodeDerivation,
    CodeReadError,
    code_uri_cid,
    package_deriver,
)
from mech_catalogue_core.derive.from_chain import (
    DerivationCache,
    code_pointer_reader,
)
from mech_catalogue_core.ipfs.cid import (
    DAG_PB,
    RAW,
    digest_to_cid,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.tests.kubo import Kubo

TOOL = dedent("""
    from typing import Any
    from .pricing import scaled

    AVAILABLE_TOOLS = ("estimate-gas", "estimate-fee")

    def run(**kwargs: Any):
        chain = kwargs.get("chain_id")
        if chain is None:
            return "chain_id missing", None, None, None
        factor = kwargs.get("factor", 2)
        return str(scaled(1.0, factor)), chain, None, None
    """)
PRICING = (
    "def scaled(value: float, factor: float) -> float:\n    return value * factor\n"
)
COMPONENT = (
    "name: gas_estimator\nauthor: tester\nversion: 0.1.0\ntype: custom\n"
    "description: Estimates gas.\nentry_point: gas_estimator.py\ncallable: run\n"
)


def _package(root: Path, files: Optional[Dict[str, str]] = None) -> Path:
    folder = root / "gas_estimator"
    folder.mkdir(parents=True)
    contents = {
        "component.yaml": COMPONENT,
        "gas_estimator.py": TOOL,
        "pricing.py": PRICING,
        "__init__.py": "",
    }
    contents.update(files or {})
    for name, text in contents.items():
        if text is not None:
            (folder / name).write_text(text)
    return folder


def _drive(
    cid: str, fetch: Callable[[str], Optional[bytes]], caps: CodeCaps = CodeCaps()
) -> Tuple[CodeDerivation, int]:
    gen: Generator[BlockRequest, BlockReply, CodeDerivation] = package_deriver(
        cid, caps
    )
    requests = 0
    try:
        request = next(gen)
        while True:
            requests += len(request)
            request = gen.send({c: fetch(c) for c in request})
    except StopIteration as done:
        return done.value, requests


def _codes(derivation: CodeDerivation) -> Tuple[str, ...]:
    return tuple(p.code for p in derivation.problems)


@pytest.mark.parametrize(
    "flags",
    [(), ("--cid-version", "1"), ("-w",), ("--chunker=size-64", "--cid-version", "1")],
)
def test_a_package_directory_gives_typed_tools(
    kubo: Kubo, tmp_path: Path, flags: Tuple[str, ...]
) -> None:
    """CIDv0/v1, wrapped in a directory, or chunked into many leaves: same arguments."""
    cid = kubo.add_directory(_package(tmp_path), *flags)
    derivation, requests = _drive(cid, kubo.block)
    assert derivation.package is not None, derivation.problems
    assert derivation.package.tool_names == ("estimate-gas", "estimate-fee")
    args = {a.identifier: a for a in derivation.package.request_arguments}
    assert (args["chain_id"].required, args["factor"].type) == (True, "float")
    # every block read was asked for once; a chunked module needs more blocks
    assert derivation.blocks == requests
    assert requests >= (12 if "--chunker=size-64" in flags else 4)


def test_the_derivation_round_trips_through_the_cache_text(
    kubo: Kubo, tmp_path: Path
) -> None:
    """What is cached by CID reads back equal."""
    derivation, _ = _drive(kubo.add_directory(_package(tmp_path)), kubo.block)
    assert CodeDerivation.from_json(derivation.to_json()) == derivation


def test_a_substituted_or_missing_block_is_refused(kubo: Kubo, tmp_path: Path) -> None:
    """A gateway serving other bytes for a CID, or none, yields code_fetch_failed."""
    cid = kubo.add_directory(_package(tmp_path))
    root_block = kubo.block(cid)
    assert root_block is not None

    def evil(c: str) -> Optional[bytes]:
        block = kubo.block(c)
        return block if c == cid or block is None else block + b" "

    derivation, _ = _drive(cid, evil)
    assert _codes(derivation) == (P.CODE_FETCH_FAILED,)
    assert "do not hash" in derivation.problems[0].message
    derivation, _ = _drive(cid, lambda c: root_block if c == cid else None)
    assert _codes(derivation) == (P.CODE_FETCH_FAILED,)
    assert derivation.package is None


def test_a_code_uri_that_is_a_file_is_not_a_directory(
    kubo: Kubo, tmp_path: Path
) -> None:
    """code_uri must name the package directory, not one file of it."""
    folder = _package(tmp_path)
    cid = kubo.add_directory(folder / "gas_estimator.py")
    derivation, _ = _drive(cid, kubo.block)
    assert _codes(derivation) == (P.CODE_NOT_A_DIRECTORY,)
    assert (
        cid in derivation.problems[0].message
        or "ipfs://" in derivation.problems[0].message
    )


@pytest.mark.parametrize(
    "caps, files, code",
    [
        (CodeCaps(max_files=3), {}, P.CODE_OVER_CAPS),
        (CodeCaps(max_file_bytes=100), {}, P.CODE_OVER_CAPS),
        (CodeCaps(max_depth=0), {}, P.CODE_NOT_A_DIRECTORY),
        (CodeCaps(), {"gas_estimator.py": None}, P.ENTRY_POINT_NOT_FOUND),
        (
            CodeCaps(),
            {"gas_estimator.py": "def run(**kwargs:\n"},
            P.SOURCE_SYNTAX_ERROR,
        ),
        (CodeCaps(), {"component.yaml": "entry_point: [\n"}, P.INVALID_COMPONENT_YAML),
        (
            CodeCaps(),
            {"component.yaml": COMPONENT + "released: !!timestamp 2001-13-45\n"},
            P.INVALID_COMPONENT_YAML,
        ),
        (
            CodeCaps(),
            {"component.yaml": COMPONENT + "a: &a [x]\nb: [*a, *a]\n"},
            P.INVALID_COMPONENT_YAML,
        ),
    ],
)
def test_faults_of_a_package_are_reported_with_its_cid(  # pylint: disable=too-many-arguments
    kubo: Kubo,
    tmp_path: Path,
    caps: CodeCaps,
    files: Dict[str, Optional[str]],
    code: str,
) -> None:
    """Over the caps, a missing entry point, a module or yaml that does not parse."""
    folder = _package(tmp_path, files)  # type: ignore[arg-type]
    if files.get("gas_estimator.py", "") is None:
        (folder / "gas_estimator.py").unlink(missing_ok=True)
    cid = kubo.add_directory(folder, "-w")
    derivation, _ = _drive(cid, kubo.block, caps)
    assert _codes(derivation) == (code,)
    assert derivation.package is None
    assert f"ipfs://{cid}" in derivation.problems[0].message or cid in str(
        derivation.problems
    )


def test_a_deriver_bug_costs_the_package_not_the_caller(
    kubo: Kubo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """derive_files raising what no fault raises (mocked: a bug) is deriver_failed.

    The problem names the exception's type only: its text may differ between agents,
    which must agree on the catalogue.

    :param kubo: a kubo daemon.
    :param tmp_path: where the package is written.
    :param monkeypatch: replaces derive_files.
    """

    def buggy(*_: object) -> None:
        raise ZeroDivisionError("a bug with agent-specific text 0x7f00")

    monkeypatch.setattr(code_uri, "derive_files", buggy)
    cid = kubo.add_directory(_package(tmp_path), "-w")
    derivation, requests = _drive(cid, kubo.block)
    assert _codes(derivation) == (P.DERIVER_FAILED,)
    assert derivation.package is None and derivation.blocks == requests
    assert "(ZeroDivisionError)" in derivation.problems[0].message
    assert "0x7f00" not in derivation.problems[0].message


def test_a_directory_nested_deeper_than_the_cap(kubo: Kubo, tmp_path: Path) -> None:
    """component.yaml three levels down is not looked for."""
    _package(tmp_path / "a" / "b")
    cid = kubo.add_directory(tmp_path / "a", "-w")
    derivation, _ = _drive(cid, kubo.block)
    assert _codes(derivation) == (P.CODE_NOT_A_DIRECTORY,)


def test_the_code_uri_of_component_metadata() -> None:
    """``code_uri: ipfs://<CID>`` gives the CIDv1; anything else is code_uri_missing."""
    cid = "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi"
    metadata = {"name": "c", "description": "d", "code_uri": f"ipfs://{cid}"}
    assert code_uri_cid(json.dumps(metadata).encode(), "component 1") == cid
    for bad in (
        {"name": "c"},
        {"code_uri": "https://example.org/x"},
        {"code_uri": "ipfs://not-a-cid"},
        ["code_uri"],
    ):
        with pytest.raises(CodeReadError) as raised:
            code_uri_cid(json.dumps(bad).encode(), "component 7")
        assert raised.value.problem.code == P.CODE_URI_MISSING
        assert "component 7" in raised.value.problem.message
    with pytest.raises(CodeReadError):
        code_uri_cid(b"\xff", "component 7")


def test_a_mechs_own_code_pointer_is_followed_once(kubo: Kubo, tmp_path: Path) -> None:
    """Legacy / ComplementaryServiceMetadata: the manifest's code_uri, cached by CID."""
    cid = kubo.add_directory(_package(tmp_path))
    cache = DerivationCache()
    fetched: List[str] = []

    def fetch(c: str) -> Optional[bytes]:
        fetched.append(c)
        return kubo.block(c)

    def drive(pointer: str) -> CodeDerivation:
        gen = code_pointer_reader(pointer, "legacy mech 4", cache)
        try:
            kind, request = next(gen)
            while True:
                assert kind == "blocks"
                kind, request = gen.send({c: fetch(c) for c in request})
        except StopIteration as done:
            return done.value

    first = drive(f"ipfs://{cid}")
    assert first.package is not None and first.package.tool_names[0] == "estimate-gas"
    count = len(fetched)
    assert drive(f"ipfs://{cid}") == first and len(fetched) == count
    for pointer in ("https://example.org/pkg.tar.gz", "ipfs://nope"):
        refused = drive(pointer)
        assert _codes(refused) == (P.CODE_URI_MISSING,)
        assert "legacy mech 4" in refused.problems[0].message


def test_a_file_split_into_too_many_blocks_is_over_the_caps(
    kubo: Kubo, tmp_path: Path
) -> None:
    """Tiny chunks cannot make the reader fetch without bound: the block count is capped."""
    cid = kubo.add_directory(_package(tmp_path), "--chunker=size-16")
    derivation, requests = _drive(cid, kubo.block, CodeCaps(max_blocks=20))
    assert _codes(derivation) == (P.CODE_OVER_CAPS,)
    assert requests == 20
    assert "more than 20 blocks" in derivation.problems[0].message


@settings(max_examples=300, deadline=None)
@given(block=st.binary(max_size=400), raw=st.booleans())
def test_any_block_behind_a_code_uri_gives_a_problem_never_an_exception(
    block: bytes, raw: bool
) -> None:
    """Whatever bytes hash to the code_uri's CID, the reader answers with a problem."""
    cid = digest_to_cid(hashlib.sha256(block).digest(), RAW if raw else DAG_PB)
    derivation, _ = _drive(cid, lambda c: block if c == cid else None)
    assert derivation.package is None
    assert len(derivation.problems) == 1
    assert derivation.problems[0].code in {
        P.CODE_NOT_A_DIRECTORY,
        P.CODE_OVER_CAPS,
        P.CODE_FETCH_FAILED,
    }


def test_only_derivations_of_the_bytes_alone_are_kept(tmp_path: Path) -> None:
    """A fetch failure and a deriver failure are derived again; a package error is kept.

    :param tmp_path: the cache's directory.
    """
    cache = DerivationCache(DirectoryStore(str(tmp_path)))
    for number, code in enumerate(
        (P.CODE_FETCH_FAILED, P.DERIVER_FAILED, P.CODE_NOT_A_DIRECTORY)
    ):
        cid = f"bafkcache{number}"
        cache.put(CodeDerivation(cid, problems=(P.error(code, "m"),)))
        kept = cache.get(cid) is not None
        assert kept == (code == P.CODE_NOT_A_DIRECTORY), code
        assert (tmp_path / f"{cid}.json").exists() == kept
    failed = CodeDerivation("bafkold", problems=(P.error(P.DERIVER_FAILED, "m"),))
    (tmp_path / "bafkold.json").write_text(failed.to_json(), encoding="utf-8")
    assert (
        DerivationCache(DirectoryStore(str(tmp_path))).get("bafkold") is None
    )  # an older version's
