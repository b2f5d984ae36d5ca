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

"""Hostile inputs beyond manifest bytes, through the whole catalogue path (issue 7).

``hostile_corpus.py`` holds the manifest-level cases (85, parsed alone by
``test_hostile_corpus.py``). This module adds what arrives *around* a manifest: on-chain
digests (zero, malformed), CIDs (raw codec, other codecs and hash functions, identity,
junk), registry returns (reverts, garbage, ids that do not exist), what a gateway serves
(other bytes, nothing, too much), and manifests that carry code or remote references.

Every case goes through the code the skill runs (``decode_digest_query``,
``manifest_fetcher`` with the real re-hash, ``refresh_catalogue`` with ``parse_manifest``)
next to good mechs, against an in-memory content-addressed gateway built with the
kubo-exact UnixFS encoder (``domain.unixfs``). Each case asserts its code, that the good
mechs are served exactly as without it, and that nothing ran: no socket connect, no
subprocess, no ``os.system``, no module imported from manifest content.
"""

import json
import os
import socket
import subprocess  # nosec B404
import sys
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

import pytest
from eth_abi import encode as abi_encode
from mech_catalogue_core.adapters.package_folder import derive_package
from mech_catalogue_core.catalogue.fetching import (
    FETCH_FAILED,
    PARSER_FAILED,
    REGISTRY_READ_FAILED,
    FetchPolicy,
    ManifestCache,
    manifest_fetcher,
    refresh_catalogue,
)
from mech_catalogue_core.chain.registry import (
    READ_CALL_FAILED,
    READ_UNDECODABLE,
    DigestRead,
    IdSelection,
    RegistrySource,
    decode_digest_query,
    digest_query,
)
from mech_catalogue_core.chain.snapshot import (
    RegistrySnapshot,
)
from mech_catalogue_core.ipfs.cid import (
    CidError,
    candidate_cids,
    cid_to_digest,
    digest_to_cid,
)
from mech_catalogue_core.ipfs.unixfs import (
    root_digest,
)
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.catalogue import (
    STATUS_HASH_MISMATCH,
    STATUS_INVALID,
    STATUS_NO_HASH,
    STATUS_OK,
    STATUS_UNAVAILABLE,
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.limits import (
    DEFAULT_LIMITS,
)
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
    REGISTRY_LEGACY_MECH,
    REGISTRY_OLAS_AGENT,
    MechRef,
)

from .hostile_corpus import build_corpus

ADDRESS = "0x" + "ab" * 20
POLICY = FetchPolicy(retries=1, backoff_initial=0.0, backoff_max=0.0, max_bytes=4096)
GOOD_IDS = (1, 2, 3)
HOSTILE_ID = 99


def good_manifest(mech_id: int) -> bytes:
    """A valid manifest with two typed tools.

    :param mech_id: makes the content unique.
    :return: the bytes.
    """
    names = [f"good-{mech_id}-a", f"good-{mech_id}-b"]
    return json.dumps(
        {
            "name": f"good {mech_id}",
            "description": "a good mech",
            "tools": names,
            "toolMetadata": {
                name: {
                    "name": name,
                    "description": "typed",
                    "input": {
                        "type": "object",
                        "schema": {
                            "type": "object",
                            "properties": {"prompt": {"type": "string"}},
                            "required": ["prompt"],
                        },
                    },
                }
                for name in names
            },
        }
    ).encode()


def dag_pb_digest(data: bytes) -> str:
    """The on-chain digest of bytes added with ``ipfs add --cid-version=1`` (dag-pb leaves).

    :param data: the bytes.
    :return: ``0x`` + 64 hex.
    """
    return "0x" + root_digest(data, raw_leaves=False, cid_version=1)[1].hex()


def raw_digest(data: bytes) -> str:
    """The digest of a single-block file added with ``--raw-leaves`` (its CID is raw codec).

    :param data: the bytes (one block).
    :return: ``0x`` + 64 hex.
    """
    return "0x" + root_digest(data, raw_leaves=True, cid_version=1)[1].hex()


@dataclass
class Gateway:
    """A content-addressed gateway in memory: CID -> bytes, optionally lying.

    :param store: what it serves, by CID.
    :param requests: CIDs asked, in order.
    :param serve: replaces what is served (``cid, stored bytes or None -> bytes or None``).
    """

    store: Dict[str, bytes] = field(default_factory=dict)
    requests: List[str] = field(default_factory=list)
    serve: Optional[Callable[[str, Optional[bytes]], Optional[bytes]]] = None

    def add(self, data: bytes, raw: bool = False) -> str:
        """Store bytes as kubo would and return the on-chain digest.

        :param data: the bytes.
        :param raw: add with raw leaves.
        :return: the digest.
        """
        digest = raw_digest(data) if raw else dag_pb_digest(data)
        self.store[digest_to_cid(digest, "raw" if raw else "dag-pb")] = data
        return digest

    def answer(self, cids: List[str]) -> Dict[str, Tuple[Optional[bytes], str]]:
        """Answer one round of the fetcher.

        :param cids: the CIDs asked.
        :return: cid -> (bytes or None, failure).
        """
        out = {}
        for cid in cids:
            self.requests.append(cid)
            data = self.store.get(cid)
            if self.serve is not None:
                data = self.serve(cid, data)
            out[cid] = (data, "" if data is not None else "HTTP 404")
        return out


def parse(data: bytes):
    """Parse as the skill does.

    :param data: manifest bytes.
    :return: ``(manifest or None, problems)``.
    """
    result = parse_manifest(data)
    return result.manifest, result.problems


def catalogue_with(
    gateway: Gateway,
    hostile: List[DigestRead],
    previous: Optional[Catalogue] = None,
    policy: FetchPolicy = POLICY,
) -> Catalogue:
    """Run one period: the good mechs plus ``hostile`` reads, through fetch and refresh.

    :param gateway: the gateway (good manifests are added to it here).
    :param hostile: the hostile reads.
    :param previous: the last catalogue.
    :param policy: retries and size cap.
    :return: the new catalogue.
    """
    reads = [
        DigestRead(ref(mech_id), gateway.add(good_manifest(mech_id)))
        for mech_id in GOOD_IDS
    ]
    snapshot = RegistrySnapshot.build(7, reads + hostile)
    fetcher = manifest_fetcher(snapshot.digests, ManifestCache(), policy)
    return refresh_catalogue(snapshot, drive(fetcher, gateway), parse, previous)


def drive(fetcher, gateway: Gateway):
    """Run a manifest fetcher against the gateway.

    :param fetcher: a ``manifest_fetcher`` generator.
    :param gateway: the gateway.
    :return: the fetcher's results.
    """
    try:
        _, cids = next(fetcher)
        while True:
            _, cids = fetcher.send(gateway.answer(cids))
    except StopIteration as done:
        return done.value


def ref(mech_id: int, kind: str = REGISTRY_COMPLEMENTARY_SERVICE) -> MechRef:
    """Name a mech.

    :param mech_id: the id.
    :param kind: the registry kind.
    :return: its ref.
    """
    return MechRef(100, kind, ADDRESS, mech_id)


def mech_of(catalogue: Catalogue, mech_id: int) -> Mech:
    """Find a mech that must be in the catalogue.

    :param catalogue: the catalogue.
    :param mech_id: the mech id.
    :return: its entry.
    """
    mech = catalogue.mech(ref(mech_id))
    assert mech is not None, f"mech {mech_id} missing"
    return mech


def assert_good_untouched(catalogue: Catalogue) -> None:
    """The good mechs are served exactly as their manifests say.

    :param catalogue: the catalogue.
    """
    for mech_id in GOOD_IDS:
        mech = mech_of(catalogue, mech_id)
        assert mech.status == STATUS_OK
        assert [t.name for t in mech.tools] == [
            f"good-{mech_id}-a",
            f"good-{mech_id}-b",
        ]
        assert not mech.errors


def codes(catalogue: Catalogue, mech_id: int = HOSTILE_ID) -> List[str]:
    """List a mech's problem codes.

    :param catalogue: the catalogue.
    :param mech_id: the mech.
    :return: its problem codes.
    """
    return [p.code for p in mech_of(catalogue, mech_id).problems]


@pytest.fixture(autouse=True)
def nothing_runs(monkeypatch: pytest.MonkeyPatch):
    """Fail the test if anything connects, spawns a process or runs a shell command.

    :param monkeypatch: pytest's monkeypatch.
    :yield: nothing.
    """

    def refuse(*args, **kwargs):
        raise AssertionError(f"hostile input made something run: {args!r:.200}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)
    monkeypatch.setattr(os, "system", refuse)
    before = set(sys.modules)
    yield
    assert not {m for m in set(sys.modules) - before if "evil" in m or "pwn" in m}


# --- digests and CIDs -----------------------------------------------------------------


def test_zero_digest_is_no_hash_and_never_fetched() -> None:
    """A zero bytes32 in the registry means "no hash": no request, no error, others served."""
    source = RegistrySource(
        REGISTRY_COMPLEMENTARY_SERVICE, 100, ADDRESS, IdSelection("list", (HOSTILE_ID,))
    )
    query = digest_query(0, source, HOSTILE_ID)
    read = decode_digest_query(query, source, [(True, b"\x00" * 32)])
    assert read.digest == ""
    gateway = Gateway()
    catalogue = catalogue_with(gateway, [read])
    assert mech_of(catalogue, HOSTILE_ID).status == STATUS_NO_HASH
    assert_good_untouched(catalogue)
    assert len(gateway.requests) == len(GOOD_IDS)


@pytest.mark.parametrize(
    "digest",
    [
        "0x" + "0" * 63,
        "0x" + "0" * 66,
        "0x" + "g" * 64,
        "not a digest",
        "0x",
        "0x" + "ab" * 32 + "\n",
        "0x" + "ab" * 32 + "; rm -rf /",
        "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
        "x" * 100_000,
    ],
    ids=[
        "63 hex",
        "66 hex",
        "non-hex",
        "words",
        "bare 0x",
        "trailing newline",
        "shell suffix",
        "a URL instead of a hash",
        "100 kB string",
    ],
)
def test_malformed_digest_is_invalid_digest(digest: str) -> None:
    """A digest that is not bytes32 (as a snapshot from a buggy peer could carry): invalid_digest, never fetched."""
    gateway = Gateway()
    catalogue = catalogue_with(gateway, [DigestRead(ref(HOSTILE_ID), digest)])
    mech = mech_of(catalogue, HOSTILE_ID)
    assert mech.status == STATUS_INVALID and P.INVALID_DIGEST in codes(catalogue)
    assert len(mech.problems[0].message) < 600
    assert_good_untouched(catalogue)
    assert len(gateway.requests) == len(GOOD_IDS)


def test_raw_codec_manifest_is_found_by_the_raw_fallback() -> None:
    """A manifest added with raw leaves (the f01551220 trap): dag-pb CID misses, raw CID verifies."""
    gateway = Gateway()
    data = good_manifest(HOSTILE_ID)
    digest = gateway.add(data, raw=True)
    catalogue = catalogue_with(gateway, [DigestRead(ref(HOSTILE_ID), digest)])
    mech = mech_of(catalogue, HOSTILE_ID)
    assert mech.status == STATUS_OK and mech.cid.startswith("bafkrei")
    assert_good_untouched(catalogue)


def test_raw_bytes_served_under_the_dag_pb_cid_are_refused() -> None:
    """A gateway serving the raw-hashed bytes under the dag-pb CID: verification is narrowed to the CID's codec."""
    gateway = Gateway()
    data = good_manifest(HOSTILE_ID)
    digest = raw_digest(data)
    dag_pb_cid, _ = candidate_cids(digest)
    gateway.store[dag_pb_cid] = data  # the raw CID answers 404
    catalogue = catalogue_with(gateway, [DigestRead(ref(HOSTILE_ID), digest)])
    assert mech_of(catalogue, HOSTILE_ID).status == STATUS_HASH_MISMATCH
    assert P.DIGEST_MISMATCH in codes(catalogue)
    assert_good_untouched(catalogue)


@pytest.mark.parametrize(
    ("cid", "code"),
    [
        ("", P.INVALID_CID),
        ("Qm" + "1" * 44, P.INVALID_CID),
        ("bafkqaaa", P.INVALID_CID),  # identity multihash: content inline in the CID
        ("f01700005" + "68656c6c6f", P.UNSUPPORTED_CID),  # identity, hex
        ("f01701114" + "00" * 20, P.UNSUPPORTED_CID),  # sha1
        ("f01711220" + "00" * 32, P.UNSUPPORTED_CID),  # dag-cbor
        (
            "bafyreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy",
            P.UNSUPPORTED_CID,
        ),
        ("f01701220" + "ab" * 31, P.INVALID_CID),  # short digest
        ("ipfs://" + "bafy" + "?" * 55, P.INVALID_CID),  # the URI form of junk
        ("z" * 10_000, P.INVALID_CID),
    ],
    ids=[
        "empty",
        "CIDv0 bad base58",
        "identity CID",
        "identity hex CID",
        "sha1 CID",
        "dag-cbor CID",
        "dag-cbor base32",
        "short digest",
        "ipfs URI of junk",
        "10k junk",
    ],
)
def test_hostile_cid_strings(cid: str, code: str) -> None:
    """Hostile CID strings (CLI, overrides) that are not a sha2-256 dag-pb/raw CID: their code, a short sentence."""
    with pytest.raises(CidError) as raised:
        cid_to_digest(cid)
    assert raised.value.problem.code == code
    assert len(raised.value.problem.message) < 600


def test_gateway_path_is_read_as_its_cid() -> None:
    """``/ipfs/<cid>`` is accepted as the CID itself, nothing else of the path is used."""
    cid = "QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG"
    assert cid_to_digest("/ipfs/" + cid) == cid_to_digest(cid)


# --- registry returns -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "results", "error"),
    [
        (REGISTRY_OLAS_AGENT, [(False, b""), (False, b"")], READ_CALL_FAILED),
        (REGISTRY_LEGACY_MECH, [(False, b"\x08\xc3\x79\xa0")], READ_CALL_FAILED),
        (REGISTRY_COMPLEMENTARY_SERVICE, [(True, b"\x01\x02")], READ_UNDECODABLE),
        (REGISTRY_LEGACY_MECH, [(True, b"\xff" * 64)], READ_UNDECODABLE),
        (
            REGISTRY_LEGACY_MECH,
            [(True, abi_encode(["uint256", "bytes32[]"], [2**256 - 1, []]))],
            "",
        ),
    ],
    ids=[
        "olas id that does not exist (reverts)",
        "legacy revert with a reason selector",
        "csm short return",
        "legacy garbage list",
        "legacy empty list for a huge count",
    ],
)
def test_registry_returns(kind: str, results, error: str) -> None:
    """Reverts and garbage from a registry: that id fails with its code, the others are served."""
    source = RegistrySource(kind, 100, ADDRESS, IdSelection("list", (HOSTILE_ID,)))
    read = decode_digest_query(digest_query(0, source, HOSTILE_ID), source, results)
    assert read.error == error and read.digest == ""
    hostile = DigestRead(ref(HOSTILE_ID), read.digest, read.error)
    catalogue = catalogue_with(Gateway(), [hostile])
    expected = STATUS_UNAVAILABLE if error else STATUS_NO_HASH
    assert mech_of(catalogue, HOSTILE_ID).status == expected
    if error:
        assert codes(catalogue) == [REGISTRY_READ_FAILED]
    assert_good_untouched(catalogue)


# --- what a gateway serves ------------------------------------------------------------


@pytest.mark.parametrize(
    ("served", "status", "code"),
    [
        (lambda cid, data: b"", STATUS_HASH_MISMATCH, P.DIGEST_MISMATCH),
        (
            lambda cid, data: b"<html>502 Bad Gateway</html>",
            STATUS_HASH_MISMATCH,
            P.DIGEST_MISMATCH,
        ),
        (
            lambda cid, data: (data or b"") + b" ",
            STATUS_HASH_MISMATCH,
            P.DIGEST_MISMATCH,
        ),
        (lambda cid, data: good_manifest(1), STATUS_HASH_MISMATCH, P.DIGEST_MISMATCH),
        (lambda cid, data: None, STATUS_UNAVAILABLE, FETCH_FAILED),
        (lambda cid, data: b"{" * 10_000, STATUS_INVALID, P.TOO_LARGE),
    ],
    ids=[
        "empty body",
        "an error page",
        "one byte more",
        "another mech's manifest",
        "404",
        "over max_bytes",
    ],
)
def test_gateway_answers(served, status: str, code: str) -> None:
    """Whatever the gateway says about the hostile CID, only that mech fails, with its code."""
    gateway = Gateway()
    digest = dag_pb_digest(b'{"tools": ["hostile"]}')
    hostile_cids = set(candidate_cids(digest))
    gateway.serve = lambda cid, data: served(cid, data) if cid in hostile_cids else data
    catalogue = catalogue_with(gateway, [DigestRead(ref(HOSTILE_ID), digest)])
    assert mech_of(catalogue, HOSTILE_ID).status == status
    assert code in codes(catalogue)
    assert_good_untouched(catalogue)


def test_hostile_update_keeps_last_good_of_that_mech_only() -> None:
    """A good mech turning hostile keeps its last good tools; the other mechs are unaffected."""
    gateway = Gateway()
    first = catalogue_with(
        gateway, [DigestRead(ref(HOSTILE_ID), gateway.add(good_manifest(HOSTILE_ID)))]
    )
    assert mech_of(first, HOSTILE_ID).status == STATUS_OK
    bad = gateway.add(b'{"tools": [1, 2, 3], "toolMetadata": NaN}')
    second = catalogue_with(gateway, [DigestRead(ref(HOSTILE_ID), bad)], previous=first)
    mech = mech_of(second, HOSTILE_ID)
    assert mech.status == STATUS_OK and mech.tools == mech_of(first, HOSTILE_ID).tools
    assert P.NON_FINITE_NUMBER in codes(second)
    assert_good_untouched(second)


# --- manifests carrying code or remote references -------------------------------------

CODE_CARRIERS = {
    "python in a description": {
        "tools": ["t"],
        "toolMetadata": {
            "t": {
                "name": "t",
                "description": "__import__('os').system('touch /tmp/pwned')",
                "input": {
                    "type": "text",
                    "description": "exec(open('evil.py').read())",
                },
            }
        },
    },
    "remote $ref in an input schema": {
        "tools": ["t"],
        "toolMetadata": {
            "t": {
                "name": "t",
                "description": "d",
                "input": {
                    "type": "object",
                    "schema": {"$ref": "http://127.0.0.1:9/evil.json"},
                },
            }
        },
    },
    "remote $schema and $id": {
        "tools": ["t"],
        "toolMetadata": {
            "t": {
                "name": "t",
                "description": "d",
                "input": {
                    "type": "object",
                    "schema": {
                        "$schema": "http://127.0.0.1:9/meta",
                        "$id": "http://127.0.0.1:9/id",
                        "type": "object",
                        "properties": {"q": {"$ref": "http://127.0.0.1:9/q.json"}},
                    },
                },
            }
        },
    },
    "pickle-like and module paths": {
        "tools": ["evil.module:run", "cos\nsystem\n(S'id'\ntR."],
    },
    "template injection in names": {
        "tools": ["{{7*7}}", "${jndi:ldap://127.0.0.1/a}", "$(id)"],
    },
    "dunder keys": {
        "tools": ["t"],
        "__class__": {"__init__": "x"},
        "toolMetadata": {
            "t": {"name": "t", "__proto__": {"polluted": True}, "description": "d"}
        },
    },
}


@pytest.mark.parametrize("name", sorted(CODE_CARRIERS))
def test_manifests_carrying_code_run_nothing(name: str) -> None:
    """Code or remote references inside a manifest are data: nothing connects, spawns or imports."""
    data = json.dumps(CODE_CARRIERS[name]).encode()
    gateway = Gateway()
    catalogue = catalogue_with(
        gateway, [DigestRead(ref(HOSTILE_ID), gateway.add(data))]
    )
    mech = mech_of(catalogue, HOSTILE_ID)
    assert mech.status in (STATUS_OK, STATUS_INVALID)
    assert PARSER_FAILED not in codes(catalogue)
    assert_good_untouched(catalogue)
    assert not os.path.exists("/tmp/pwned")  # nosec B108


# --- the whole manifest corpus, each next to good mechs -------------------------------

#: cases the fetch path sees as the parser does: default limits, within the byte cap
#: (bigger ones stop at the fetcher's too_large, covered by test_gateway_answers)
CORPUS = [
    c
    for c in build_corpus()
    if c.limits == DEFAULT_LIMITS and len(c.data) <= DEFAULT_LIMITS.max_bytes
]


#: valid manifests declaring no tools: the owner withdrew them, the mech is ok and empty
WITHDRAWALS = {"empty tools"}


@pytest.mark.parametrize("case", CORPUS, ids=[c.name for c in CORPUS])
def test_corpus_case_next_to_good_mechs(case) -> None:
    """Each hostile manifest, fetched and verified like any other: its own fate only."""
    gateway = Gateway()
    digest = gateway.add(case.data)
    policy = FetchPolicy(retries=0, max_bytes=DEFAULT_LIMITS.max_bytes)
    catalogue = catalogue_with(
        gateway, [DigestRead(ref(HOSTILE_ID), digest)], policy=policy
    )
    mech = mech_of(catalogue, HOSTILE_ID)
    assert PARSER_FAILED not in codes(catalogue)
    if case.survivors or case.name in WITHDRAWALS:
        assert mech.status == STATUS_OK
        assert tuple(t.name for t in mech.tools) == case.survivors
    else:
        assert mech.status == STATUS_INVALID and not mech.tools
    assert_good_untouched(catalogue)


def test_hostile_kinds_are_at_least_sixty() -> None:
    """Manifest corpus plus the cases of this module: at least 60 kinds (issue 7)."""
    here = (
        1  # zero digest
        + 9  # malformed digests
        + 2  # raw codec
        + 10  # CID strings
        + 1  # gateway path
        + 5  # registry returns
        + 6  # gateway answers
        + 1  # hostile update
        + len(CODE_CARRIERS)
        + 1  # tool code that would run on import
    )
    assert len(build_corpus()) + here >= 60


# --- tool code that would run on import -----------------------------------------------

EXECUTING_TOOL = '''
"""A tool package that runs code in every place Python evaluates at import or def time."""
import os
import evil_module_that_does_not_exist
os.system("touch " + os.environ["MARKER"])
open(os.environ["MARKER"], "w").write("imported")


def _decorate(fn):
    open(os.environ["MARKER"], "w").write("decorated")
    return fn


class Meta(type):
    def __new__(mcs, *args):
        open(os.environ["MARKER"], "w").write("metaclass")
        return super().__new__(mcs, *args)


class Tool(metaclass=Meta):
    pass


ALLOWED_TOOLS = ["exec-tool", *[__import__("os").system("id")]]


@_decorate
def run(
    prompt: __import__("os").system("id"),
    limit=open(os.environ["MARKER"], "w").write("default"),
    **kwargs,
):
    """Run.

    :param prompt: the question.
    """
    temperature = kwargs.get("temperature", eval("0.5"))
    return prompt, limit, temperature
'''


def test_derive_never_runs_tool_code(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Deriving a tool that executes at import, at def time and in defaults: nothing runs."""
    marker = tmp_path / "ran.marker"
    monkeypatch.setenv("MARKER", str(marker))
    package = tmp_path / "exec_tool"
    package.mkdir()
    (package / "component.yaml").write_text(
        "name: exec_tool\nauthor: evil\nversion: 0.1.0\ntype: custom\n"
        "description: runs code\nentry_point: exec_tool.py\ncallable: run\n"
    )
    (package / "exec_tool.py").write_text(EXECUTING_TOOL)
    (package / "__init__.py").write_text(
        'open(__import__("os").environ["MARKER"], "w").write("init")\n'
    )
    modules = set(sys.modules)
    derived = derive_package(package)
    assert [a.identifier for a in derived.arguments] == [
        "prompt",
        "limit",
        "temperature",
    ]
    # eval("0.5") and the call in the annotation are never evaluated: no type from them
    assert [a.type for a in derived.arguments] == ["str", "any", "any"]
    # ALLOWED_TOOLS holds a call: not resolved, the component name stands in, with a code
    assert derived.tool_names == ("exec_tool",)
    assert "unresolved_tool_list" in [p.code for p in derived.problems]
    assert not marker.exists()
    assert not {
        m for m in set(sys.modules) - modules if "exec_tool" in m or "evil" in m
    }
