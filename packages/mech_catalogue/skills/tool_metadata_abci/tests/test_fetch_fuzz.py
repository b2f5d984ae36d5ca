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

"""Generated manifests through one FetchManifests period: nothing raises, bad ones are quarantined.

The code under test is what ``FetchManifestsBehaviour`` runs for a period, minus the
framework: the gateway reply turned into bytes (``domain.size_cap.gateway_body``, as
``_reply_bytes`` does, with and without a gateway honouring Range), the fetcher with its
verification against the on-chain digest (``manifest_fetcher``), the behaviour's own
``parse`` (the skill's Limits), ``refresh_catalogue`` over two periods (the second one
moves a good mech onto a generated manifest, so the last-good path runs too), the
behaviour's own ``payload_for`` (what goes into the consensus payload and, from it, into
SynchronizedData), and the HTTP API (``domain.http_api.route``, every page of ``/tools``,
``/tools/<name>``, ``/mechs``, ``/healthcheck``). The framework (Tendermint, the
http_client connection) is left out so that hundreds of examples fit in the default run:
the behaviour tests cover the framework glue.

Manifests are every known shape (names only, ``toolMetadata``, typed ``kwargs`` objects,
``arguments``, JSON inside descriptions) with hostile values (odd Unicode, control and
bidi characters, huge strings, wrong types, deep nesting), plus invalid JSON and
documents over the byte cap.
"""

import json
from types import SimpleNamespace
from typing import Any, Dict, List, Tuple
from urllib.parse import quote

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mech_catalogue_core.catalogue.exposure import (
    ExposedCatalogue,
)
from mech_catalogue_core.catalogue.fetching import (
    FetchPolicy,
    ManifestCache,
    manifest_fetcher,
    refresh_catalogue,
)
from mech_catalogue_core.catalogue.store import (
    DigestStore,
)
from mech_catalogue_core.chain.registry import (
    DigestRead,
)
from mech_catalogue_core.chain.snapshot import (
    RegistrySnapshot,
)
from mech_catalogue_core.http_api.routes import (
    CatalogueView,
    route,
)
from mech_catalogue_core.ipfs.cid import (
    candidate_cids,
)
from mech_catalogue_core.ipfs.size_cap import (
    gateway_body,
    read_limit,
)
from mech_catalogue_core.ipfs.unixfs import (
    root_digest,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_OK,
    Catalogue,
)
from mech_catalogue_core.model.limits import (
    DEFAULT_LIMITS,
)
from mech_catalogue_core.model.problems import (
    CODE_DESCRIPTIONS,
    INVALID_JSON,
    KEPT_LAST_GOOD,
    TOO_DEEP,
    TOO_LARGE,
)
from mech_catalogue_core.model.tool import MechRef

from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.fetch_manifests import (
    FetchManifestsBehaviour,
)

CAP = DEFAULT_LIMITS.max_bytes
#: open-autonomy sends a payload as hex in a GET URL and Tendermint 0.34 refuses headers
#: over 1 MiB (docs/skill-contract.md, "Payloads are bounded"): an encoded payload must
#: stay under half of that
PAYLOAD_BOUND = 512 * 1024
#: the longest problem sentence: hostile text is quoted cut, never whole
MESSAGE_BOUND = 2_000
GOOD_TOOLS = ("good-one", "good-two")
GOOD = json.dumps({"name": "good", "tools": list(GOOD_TOOLS)}).encode()
CHAIN = 100

# --- strategies ------------------------------------------------------------------------

ODD_TEXT = st.text(
    # lone surrogates (category Cs) cannot be UTF-8 encoded
    alphabet=st.characters(blacklist_categories=["Cs"]),
    max_size=40,
) | st.sampled_from(
    [
        "",
        " ",
        "\u202eevil\u202c",
        "\x00\x1b[31m",
        "名前" * 20,
        "e\u0301" * 10,
        "\U0001f600" * 8,
        "a/b~c",
        "../../etc/passwd",
        "x" * 129,
    ]
)
HUGE_TEXT = st.integers(min_value=1, max_value=100_000).map(lambda n: "h" * n)
NAMES = ODD_TEXT | st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True)
SCALAR = st.none() | st.booleans() | st.integers() | st.floats() | ODD_TEXT
ANY_JSON = st.recursive(
    SCALAR,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(ODD_TEXT, inner, max_size=4),
    max_leaves=20,
)
TYPES = (
    st.sampled_from(
        [
            "str",
            "int",
            "float",
            "bool",
            "list[str]",
            "hexAddress",
            "uint256",
            "enum",
            "zzz",
        ]
    )
    | ODD_TEXT
)
ARGUMENT = st.fixed_dictionaries(
    {"identifier": NAMES, "type": TYPES},
    optional={
        "required": st.booleans() | ANY_JSON,
        "default": ANY_JSON,
        "description": ODD_TEXT | HUGE_TEXT,
        "enum": st.lists(ANY_JSON, max_size=5),
        "schema": ANY_JSON,
    },
)
TOOL_METADATA = st.fixed_dictionaries(
    {},
    optional={
        "name": NAMES | ANY_JSON,
        "description": ODD_TEXT
        | HUGE_TEXT
        | st.builds(json.dumps, st.dictionaries(ODD_TEXT, ANY_JSON, max_size=3)),
        "input": st.fixed_dictionaries({"type": ODD_TEXT, "description": ODD_TEXT})
        | ANY_JSON,
        "output": st.fixed_dictionaries({"schema": ANY_JSON}) | ANY_JSON,
        "arguments": st.lists(ARGUMENT | ANY_JSON, max_size=6) | ANY_JSON,
        "kwargs": st.lists(ARGUMENT, max_size=4)
        | st.dictionaries(NAMES, TYPES, max_size=4),
    },
)


@st.composite
def _valid_json_manifest(draw: Any) -> Tuple[bytes, str]:
    names = draw(st.lists(NAMES, max_size=30))
    shape = draw(st.sampled_from(["names", "metadata", "tool_objects", "wrong_types"]))
    if shape == "names":
        document: Any = {"tools": names}
    elif shape == "metadata":
        document = {
            "name": draw(ODD_TEXT),
            "description": draw(ODD_TEXT | HUGE_TEXT),
            "tools": names,
            "toolMetadata": draw(st.dictionaries(NAMES, TOOL_METADATA, max_size=6)),
        }
    elif shape == "tool_objects":
        document = {
            "tools": draw(
                st.lists(
                    NAMES
                    | st.builds(
                        lambda name, meta: {**meta, "name": name},
                        NAMES | ANY_JSON,
                        TOOL_METADATA,
                    ),
                    max_size=8,
                )
            )
        }
    else:
        document = draw(
            st.fixed_dictionaries(
                {"tools": ANY_JSON},
                optional={"toolMetadata": ANY_JSON, "name": ANY_JSON},
            )
            | ANY_JSON
        )
    text = json.dumps(document, ensure_ascii=draw(st.booleans()))
    return text.encode("utf-8"), ""


@st.composite
def _broken_manifest(  # pylint: disable=too-many-return-statements
    draw: Any,
) -> Tuple[bytes, str]:
    """Bytes that must be quarantined, with the code expected ("" when several fit)."""
    kind = draw(
        st.sampled_from(
            ["random", "truncated", "deep", "over_cap", "bom", "nan", "not_utf8"]
        )
    )
    if kind == "random":
        return draw(st.binary(max_size=200).filter(lambda b: b.strip())), ""
    if kind == "truncated":
        body = json.dumps({"tools": draw(st.lists(NAMES, min_size=1, max_size=5))})
        return body[: draw(st.integers(1, len(body) - 1))].encode(), INVALID_JSON
    if kind == "deep":
        depth = draw(st.integers(DEFAULT_LIMITS.max_depth + 1, 20_000))
        return ('{"tools": ' + "[" * depth + "]" * depth + "}").encode(), TOO_DEEP
    if kind == "over_cap":
        extra = draw(st.integers(1, 5000))
        padding = "p" * (CAP + extra)
        return json.dumps({"tools": ["big"], "pad": padding}).encode(), TOO_LARGE
    if kind == "bom":
        return b"\xef\xbb\xbf" + GOOD, ""
    if kind == "nan":
        return b'{"tools": ["a"], "x": NaN}', ""
    return b'{"tools": ["\xff\xfe"]}', ""


def _digest(data: bytes) -> str:
    return "0x" + root_digest(data, raw_leaves=False, cid_version=0)[1].hex()


def _ref(mech_id: int) -> MechRef:
    return MechRef(100, "legacy_mech_registry", "0x" + "ab" * 20, mech_id)


def _gateway(served: Dict[str, bytes], honours_range: bool):
    """Answer a CID like a gateway would, through the size-cap reader."""

    def answer(cid: str) -> Tuple[Any, str]:
        data = served[cid]
        if honours_range:
            body = data[: read_limit(CAP)]
            header = f"Content-Range: bytes 0-{len(body) - 1}/{len(data)}\n"
            return gateway_body(206, header if data else "", body, CAP)
        return gateway_body(200, "", data, CAP)

    return answer


def _period(
    reads: List[DigestRead],
    by_digest: Dict[str, bytes],
    honours_range: bool,
    previous: Any,
    behaviour: Any,
) -> Tuple[Catalogue, RegistrySnapshot]:
    snapshot = RegistrySnapshot.build(CHAIN, reads)
    fetcher = manifest_fetcher(
        snapshot.digests,
        ManifestCache(),
        FetchPolicy(retries=0, backoff_initial=0.0, max_bytes=CAP),
    )
    served = {}
    for digest, data in by_digest.items():
        for cid in candidate_cids(digest):
            served[cid] = data
    answer = _gateway(served, honours_range)
    fetched: Dict[str, Any] = {}
    _, cids = next(fetcher)
    try:
        while True:
            _, cids = fetcher.send({cid: answer(cid) for cid in cids})
    except StopIteration as done:
        fetched = done.value
    catalogue = refresh_catalogue(
        snapshot,
        fetched,
        lambda data: FetchManifestsBehaviour.parse(behaviour, data),
        previous,
    )
    return catalogue, snapshot


def _check_http(exposed: ExposedCatalogue) -> None:
    view = CatalogueView.build(exposed)
    cursor = ""
    pages = 0
    while True:
        url = "/tools" + (f"?cursor={quote(cursor)}" if cursor else "")
        result = route("GET", url, b"", view, exposed.agreed_at, 50, 3600.0)
        assert result.status_code == 200, result
        body = json.loads(result.body)
        pages += 1
        cursor = body.get("nextCursor") or ""
        if not cursor:
            break
        assert pages < 1000
    for name in sorted(exposed.catalogue.tool_names())[:10]:
        result = route(
            "GET", "/tools/" + quote(name, safe=""), b"", view, 0.0, 50, 3600.0
        )
        assert result.status_code == 200, (name, result)
        json.loads(result.body)
    for path in ("/mechs", "/healthcheck"):
        result = route("GET", path, b"", view, exposed.agreed_at, 50, 3600.0)
        assert result.status_code in (200, 503)
        json.loads(result.body)


def _check_mech(mech: Any) -> None:
    for problem in mech.problems:
        assert problem.code in CODE_DESCRIPTIONS, problem
        assert len(problem.message) <= MESSAGE_BOUND, problem.code
    if mech.status == STATUS_OK:  # tools, or a valid manifest that declares none
        assert mech.tools or (
            not mech.errors and "no_tools" in [p.code for p in mech.problems]
        ), mech
    else:  # quarantined, with the reason
        assert mech.problems and not mech.tools, mech


MANIFESTS = st.lists(
    _valid_json_manifest() | _broken_manifest(), min_size=1, max_size=4
)


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(manifests=MANIFESTS, honours_range=st.booleans())
def test_generated_manifests_through_one_period(
    manifests: List[Tuple[bytes, str]], honours_range: bool
) -> None:
    """Nothing raises; bad manifests are quarantined with a code; the good mech stays ok; payload bounded."""
    behaviour = SimpleNamespace(
        context=SimpleNamespace(agent_address="0x" + "0" * 40),
        params=SimpleNamespace(max_manifest_bytes=CAP),
        skill_state=SimpleNamespace(views=DigestStore()),
    )
    by_digest = {_digest(GOOD): GOOD}
    reads = [DigestRead(_ref(1), _digest(GOOD))]
    for index, (data, _) in enumerate(manifests):
        digest = _digest(data)
        by_digest[digest] = data
        reads.append(DigestRead(_ref(index + 2), digest))

    first, snapshot = _period(reads, by_digest, honours_range, None, behaviour)
    good = first.mech(_ref(1))
    assert good is not None and good.status == STATUS_OK
    assert tuple(sorted(t.name for t in good.tools)) == GOOD_TOOLS
    for index, (_, expected) in enumerate(manifests):
        mech = first.mech(_ref(index + 2))
        assert mech is not None
        _check_mech(mech)
        if expected:
            assert mech.status != STATUS_OK
            assert expected in {p.code for p in mech.problems}, mech.problems

    # period 2: the good mech moves onto the first generated manifest
    moved = [DigestRead(_ref(1), reads[1].digest)] + reads[1:]
    second, _ = _period(moved, by_digest, honours_range, first, behaviour)
    mech = second.mech(_ref(1))
    assert mech is not None and mech.status == STATUS_OK
    codes = {p.code for p in mech.problems}
    if KEPT_LAST_GOOD in codes:
        assert tuple(sorted(t.name for t in mech.tools)) == GOOD_TOOLS
    _check_mech(mech)

    for catalogue in (first, second):
        payload = FetchManifestsBehaviour.payload_for(behaviour, catalogue)  # type: ignore[arg-type]
        assert len(payload.encode()) < PAYLOAD_BOUND
        exposed = ExposedCatalogue(
            catalogue, catalogue.digest(), snapshot.digest(), CHAIN, 1000.0, 1
        )
        _check_http(exposed)


def test_largest_accepted_manifest_keeps_the_payload_bounded() -> None:
    """The parser's largest manifest (max_tools names of max_name_length CJK characters)."""
    limits = DEFAULT_LIMITS
    names = [
        f"{i:04d}" + "名" * (limits.max_name_length - 4)
        for i in range(limits.max_tools)
    ]
    data = json.dumps({"tools": names}, ensure_ascii=False).encode()
    assert len(data) <= CAP
    behaviour = SimpleNamespace(
        context=SimpleNamespace(agent_address="0x" + "0" * 40),
        params=SimpleNamespace(max_manifest_bytes=CAP),
        skill_state=SimpleNamespace(views=DigestStore()),
    )
    reads = [DigestRead(_ref(1), _digest(data))]
    catalogue, _ = _period(reads, {_digest(data): data}, True, None, behaviour)
    mech = catalogue.mech(_ref(1))
    assert mech is not None and len(mech.tools) == limits.max_tools
    payload = FetchManifestsBehaviour.payload_for(behaviour, catalogue)  # type: ignore[arg-type]
    assert len(payload.encode()) < PAYLOAD_BOUND
