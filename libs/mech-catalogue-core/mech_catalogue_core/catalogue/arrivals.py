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

"""Verify and parse each manifest as its bytes arrive, while the other GETs are in flight.

``manifest_fetcher`` verifies a wave's bytes once the wave is answered, and
``refresh_catalogue`` parses after the whole fetch. :class:`ParseOnArrival` lets a driver
start that work earlier without changing either: it is the ``on_arrival`` hook of a
``domain.ipfs.gateways.FetchWindow`` (it re-hashes the bytes against the digest the CID
names, and parses only bytes that verify) and then the ``parse`` function given to
``refresh_catalogue``, which finds the result ready. Results are keyed by the SHA-256 of
the bytes (not the bytes: holding every manifest's bytes until the catalogue is built
cost 145 MiB at 10,000 manifests), so a result is only ever used for the very bytes it
was computed from, and each one is handed out once (nothing accumulates across periods).
"""

import time
from typing import Dict, Tuple

from mech_catalogue_core.catalogue.fetching import (
    PackedBytes,
    ParseFn,
    unpack,
)
from mech_catalogue_core.ipfs.cid import (
    CidError,
    cid_to_digest,
    verify,
)
from mech_catalogue_core.ipfs.unixfs import (
    sha256,
)


class ParseOnArrival:
    """A manifest parser that does its work when bytes arrive rather than when asked."""

    def __init__(self, parse: ParseFn, max_bytes: int) -> None:
        """Wrap a parser.

        :param parse: the pure manifest parser (bytes -> (manifest or None, problems)).
        :param max_bytes: bytes over this are never parsed here (the fetcher rejects them).
        """
        self._parse = parse
        self._max_bytes = max_bytes
        self._ready: Dict[bytes, Tuple] = {}  # SHA-256 of the bytes -> result
        self.parsed_early = 0
        self.skipped = 0
        #: seconds spent re-hashing and parsing on arrival (for benchmarks; no decision uses
        #: them): wall time, and the CPU time of the thread doing it (``time.thread_time``;
        #: the difference is time waiting, e.g. for the GIL while fetch threads run)
        self.verify_seconds = 0.0
        self.parse_seconds = 0.0
        self.verify_cpu_seconds = 0.0
        self.parse_cpu_seconds = 0.0

    def arrived(self, cid: str, data: bytes) -> None:
        """Verify ``data`` against ``cid`` and parse it now.

        Bytes that are too large, do not verify, come under an unreadable CID or make the
        parser raise are left alone: ``manifest_fetcher`` and ``refresh_catalogue`` meet
        them again and report them as usual.

        :param cid: the CID the bytes were fetched under.
        :param data: the bytes, or a :class:`.fetching.PackedBytes` of them.
        """
        if isinstance(data, PackedBytes):  # as a FetchWindow's keep packed it
            data = unpack(data)
        key = sha256(data)  # in pieces that keep the GIL (see unixfs.sha256)
        if len(data) > self._max_bytes or key in self._ready:
            return
        try:
            codec, digest = cid_to_digest(cid)
        except CidError:
            self.skipped += 1
            return
        began, cpu = time.perf_counter(), time.thread_time()
        verified = verify(data, digest, codec).ok
        self.verify_seconds += time.perf_counter() - began
        self.verify_cpu_seconds += time.thread_time() - cpu
        if not verified:
            self.skipped += 1
            return
        began, cpu = time.perf_counter(), time.thread_time()
        try:
            self._ready[key] = self._parse(data)
        except Exception:  # pylint: disable=broad-exception-caught
            # refresh_catalogue parses it again and quarantines the mech with the reason
            self.skipped += 1
            return
        finally:
            self.parse_seconds += time.perf_counter() - began
            self.parse_cpu_seconds += time.thread_time() - cpu
        self.parsed_early += 1

    def parse(self, data: bytes) -> Tuple:
        """Give the result parsed on arrival, or parse now.

        :param data: verified manifest bytes.
        :return: what the wrapped parser returns for ``data``.
        """
        ready = self._ready.pop(sha256(data), None)
        return ready if ready is not None else self._parse(data)

    def __len__(self) -> int:
        """Count results not handed out yet.

        :return: results waiting.
        """
        return len(self._ready)
