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

"""The catalogue digest is incremental: per-mech content digests, cached on the immutable Mech."""

import dataclasses
import hashlib
import json
import pickle
from typing import List

import pytest
import rfc8785
from mech_catalogue_core.catalogue.fetching import (
    FetchResult,
    refresh_catalogue,
)
from mech_catalogue_core.chain.registry import (
    DigestRead,
)
from mech_catalogue_core.chain.snapshot import (
    RegistrySnapshot,
)
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.model import catalogue as model
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.catalogue import (
    Catalogue,
    Mech,
    MechRef,
)

ADDRESS = "0x" + "ab" * 20


def ref(mech_id: int) -> MechRef:
    """A legacy-registry mech ref.

    :param mech_id: the id.
    :return: the ref.
    """
    return MechRef(100, "legacy_mech_registry", ADDRESS, mech_id)


def manifest_bytes(mech_id: int, tools: int = 3) -> bytes:
    """A typed manifest of ``tools`` tools, distinct per mech.

    :param mech_id: the mech (makes names distinct).
    :param tools: how many tools.
    :return: UTF-8 JSON.
    """
    names = [f"tool_{mech_id}_{i}" for i in range(tools)]
    meta = {
        n: {
            "name": n,
            "description": f"does {n}",
            "input": {"type": "text", "description": "a prompt"},
            "output": {"type": "object", "description": "the answer"},
        }
        for n in names
    }
    return json.dumps(
        {"name": f"m{mech_id}", "tools": names, "toolMetadata": meta}
    ).encode()


def mech(mech_id: int, block: int = 10) -> Mech:
    """A parsed mech entry.

    :param mech_id: the id.
    :param block: observed block.
    :return: the entry.
    """
    result = parse_manifest(manifest_bytes(mech_id))
    return Mech.from_manifest(
        ref(mech_id), result.manifest, result.problems, "0x" + "11" * 32, "bafk", block
    )


def fresh(entry: Mech) -> Mech:
    """Rebuild an entry from its serialised form (no cache carried).

    :param entry: the entry.
    :return: an equal, uncached entry.
    """
    return Mech.from_dict(json.loads(json.dumps(entry.to_dict())))


def test_digest_is_the_documented_definition() -> None:
    """sha256 of RFC 8785 {version, mechs: [[content digest, block]]}; content = identity + body digest."""
    catalogue = Catalogue.build(
        [mech(2, 7), mech(1, 9), Mech(ref(3), status="no_hash")]
    )
    entries = []
    for entry in catalogue.mechs:
        data = entry.to_dict()
        body = {
            "name": data["name"],
            "description": data["description"],
            "extra": data["extra"],
            "tools": [
                {k: v for k, v in tool.items() if k != "provenance"}
                for tool in data["tools"]
            ],
            "problems": data["problems"],
            "spec_version": data["spec_version"],
            "withheld": data.get("withheld", []),
        }
        content = {
            "ref": data["ref"],
            "digest": data["digest"],
            "cid": data["cid"],
            "status": data["status"],
            "provenance": [tool["provenance"] for tool in data["tools"]],
            "body": hashlib.sha256(rfc8785.dumps(body)).hexdigest(),
        }
        content_digest = hashlib.sha256(rfc8785.dumps(content)).hexdigest()
        assert entry.content_digest() == content_digest
        entries.append([content_digest, entry.observed_block])
    document = rfc8785.dumps({"version": 1, "mechs": entries})
    assert catalogue.digest() == hashlib.sha256(document).hexdigest()


def test_registrations_sharing_a_manifest_share_one_body_canonicalisation() -> None:
    """Equal bodies under other refs: one canonicalisation of the body, distinct content digests."""
    body_digest_of = model._body_digest_of  # pylint: disable=protected-access
    body_digest_of.cache_clear()
    result = parse_manifest(manifest_bytes(1))
    copies = [
        Mech.from_manifest(
            ref(i), result.manifest, result.problems, "0x" + "11" * 32, "bafk", 7
        )
        for i in range(1, 41)
    ]
    digests = {m.content_digest() for m in copies}
    assert len(digests) == 40  # each registration is its own entry
    assert body_digest_of.cache_info().misses == 1
    assert body_digest_of.cache_info().hits == 39
    renamed = dataclasses.replace(copies[0], name="other")
    assert renamed.content_digest() not in digests
    assert body_digest_of.cache_info().misses == 2


MUTATIONS = {
    "on-chain digest": {"digest": "0x" + "22" * 32},
    "cid": {"cid": "bafy-other"},
    "status": {"status": "invalid"},
    "name": {"name": "renamed"},
    "description": {"description": "other"},
    "extra": {"extra_json": '{"image":"x"}'},
    "a tool dropped": "drop_tool",
    "problems": {"problems": (P.warning(P.NO_TOOLS, "none"),)},
    "block": {"observed_block": 11},
    "spec version": {"spec_version": "1"},
}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_every_field_change_changes_the_digest(name: str) -> None:
    """Each field of a mech, the block included, enters the catalogue digest."""
    base = mech(1)
    change = MUTATIONS[name]
    if change == "drop_tool":
        changed = dataclasses.replace(base, tools=base.tools[1:])
    else:
        assert isinstance(change, dict)
        changed = dataclasses.replace(base, **change)
    assert (
        Catalogue.build([changed, mech(2)]).digest()
        != Catalogue.build([base, mech(2)]).digest()
    )


def test_a_cached_digest_never_outlives_its_entry() -> None:
    """at_block keeps the cache and it equals a fresh computation; replace and pickle drop it."""
    base = mech(1)
    base.content_digest()
    moved = base.at_block(99)
    assert moved.observed_block == 99 and moved == dataclasses.replace(
        base, observed_block=99
    )
    assert moved.content_digest() == fresh(moved).content_digest()
    assert Catalogue.build([moved]).digest() == Catalogue.build([fresh(moved)]).digest()
    renamed = dataclasses.replace(base, name="other")
    assert renamed.content_digest() != base.content_digest()
    copied = pickle.loads(pickle.dumps(base))
    cached = copied._content_digest  # pylint: disable=protected-access
    assert copied == base and cached == ""
    assert copied.content_digest() == base.content_digest()


class Counting:  # pylint: disable=too-few-public-methods
    """Wraps the model's canonicaliser, recording the size of every document it serialises."""

    def __init__(self) -> None:
        """Start empty."""
        self.sizes: List[int] = []
        self.inner = model.canonical_bytes

    def __call__(self, value):
        """Serialise and record.

        :param value: a JSON value.
        :return: its canonical bytes.
        """
        data = self.inner(value)
        self.sizes.append(len(data))
        return data


def parse(data: bytes):
    """Parse as the skill does.

    :param data: manifest bytes.
    :return: (manifest, problems).
    """
    result = parse_manifest(data)
    return result.manifest, result.problems


def test_a_period_canonicalises_only_the_changed_mechs(monkeypatch) -> None:
    """100 mechs, one changes on chain: one mech (body and content) is canonicalised again, plus the short list."""
    # both caches cold: an earlier test in this process may have met the same bodies
    model._provenance_text.cache_clear()  # pylint: disable=protected-access
    model._body_digest_of.cache_clear()  # pylint: disable=protected-access
    blobs = {i: manifest_bytes(i) for i in range(1, 101)}
    digests = {i: "0x" + hashlib.sha256(b).hexdigest() for i, b in blobs.items()}
    changed = manifest_bytes(1, tools=4)
    changed_digest = "0x" + hashlib.sha256(changed).hexdigest()
    fetched = {d: FetchResult.ok(d, f"bafk{i}", blobs[i]) for i, d in digests.items()}
    fetched[changed_digest] = FetchResult.ok(changed_digest, "bafk-new", changed)
    first = refresh_catalogue(
        RegistrySnapshot.build(10, [DigestRead(ref(i), d) for i, d in digests.items()]),
        fetched,
        parse,
    )
    first.digest()
    reads = [DigestRead(ref(i), d) for i, d in digests.items() if i != 1]
    snapshot = RegistrySnapshot.build(20, [DigestRead(ref(1), changed_digest), *reads])
    counting = Counting()
    monkeypatch.setattr(model, "canonical_bytes", counting)
    second = refresh_catalogue(snapshot, fetched, parse, first)
    digest = second.digest()
    # the changed mech (body, its tools' one new provenance, content), then the list
    assert len(counting.sizes) == 4
    monkeypatch.setattr(model, "canonical_bytes", counting.inner)
    cold = Catalogue.from_json(second.to_json())
    assert cold.digest() == digest  # the warm result is the cold one
    assert digest != first.digest()


def test_a_kept_entry_is_not_canonicalised_again_period_after_period(
    monkeypatch,
) -> None:
    """A mech failing the same way every period keeps the same entry object and digest."""
    good = manifest_bytes(1)
    d_good = "0x" + hashlib.sha256(good).hexdigest()
    d_gone = "0x" + "99" * 32
    first = refresh_catalogue(
        RegistrySnapshot.build(10, [DigestRead(ref(1), d_good)]),
        {d_good: FetchResult.ok(d_good, "bafk", good)},
        parse,
    )
    failing = {d_gone: FetchResult.unavailable(d_gone, ["bafy"], "timeout")}
    kept = refresh_catalogue(
        RegistrySnapshot.build(20, [DigestRead(ref(1), d_gone)]), failing, parse, first
    )
    kept.digest()
    counting = Counting()
    monkeypatch.setattr(model, "canonical_bytes", counting)
    again = refresh_catalogue(
        RegistrySnapshot.build(30, [DigestRead(ref(1), d_gone)]), failing, parse, kept
    )
    assert again.digest() == kept.digest()
    assert len(counting.sizes) == 1  # only the one-entry list
