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

"""The manifest cache's clean-up on disk, and the fetch order for digests without a rank.

Found by mutation testing (issue 18): ``ManifestCache.retain`` stopping at the first file
it cannot remove, or counting every removed file as one, passed every test; so did a
digest missing from ``ranks`` being asked for after ranked ones (the docstring says a
missing rank is 0).
"""

import hashlib
import os

from mech_catalogue_core.adapters.directory import DirectoryStore
from mech_catalogue_core.catalogue.fetching import (
    FetchPolicy,
    ManifestCache,
    manifest_fetcher,
)
from mech_catalogue_core.ipfs.cid import (
    DAG_PB,
    digest_to_cid,
)


def test_retain_removes_every_stale_file_past_one_it_cannot_remove(tmp_path) -> None:
    """Directories named like CIDs cannot be removed as files: every stale file still goes."""
    directory = str(tmp_path / "cache")
    cache = ManifestCache(DirectoryStore(directory))
    kept = "bafykept"
    cache.put(kept, b"kept")
    names = [f"stale{i:02d}" for i in range(12)]
    for index, name in enumerate(names):
        if index % 4 == 0:
            os.mkdir(os.path.join(directory, name))  # os.remove raises on it
        else:
            with open(os.path.join(directory, name), "wb") as handle:
                handle.write(b"old")
    dropped = ManifestCache(DirectoryStore(directory)).retain([kept])
    left = sorted(os.listdir(directory))
    assert left == sorted([kept] + names[::4])  # only the undeletable ones stay
    assert dropped == 9


def test_retain_counts_each_file_dropped_from_disk(tmp_path) -> None:
    """A cache started over a directory of three files drops all three and says 3."""
    cache_dir = str(tmp_path / "cache")
    first = ManifestCache(DirectoryStore(cache_dir))
    for name in ("bafya", "bafyb", "bafyc"):
        first.put(name, name.encode())
    assert ManifestCache(DirectoryStore(cache_dir)).retain([]) == 3
    assert not os.listdir(cache_dir)


def test_a_digest_without_a_rank_is_asked_for_first() -> None:
    """Ranks give one digest 1; the two left out count as 0 and lead, in digest order."""
    digests = sorted("0x" + hashlib.sha256(b"%d" % i).hexdigest() for i in range(3))
    ranked = digests[0]
    fetcher = manifest_fetcher(digests, ManifestCache(), FetchPolicy(), {ranked: 1})
    _, cids = next(fetcher)
    assert cids == [digest_to_cid(d, DAG_PB) for d in digests[1:] + [ranked]]
