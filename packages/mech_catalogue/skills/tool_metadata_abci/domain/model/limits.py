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

"""Size caps applied to every manifest (one place, so the skill can expose them as params)."""

from dataclasses import dataclass

#: kubo's default chunk size (go-ipfs-chunker DefaultBlockSize); see cid.py.
IPFS_CHUNK_SIZE = 262144


@dataclass(frozen=True)
class Limits:
    """Caps that keep one hostile manifest from costing more than a bounded amount.

    :param max_bytes: largest accepted manifest, in bytes (default 1 MiB = 4 kubo chunks).
    :param max_depth: deepest accepted nesting of arrays/objects.
    :param max_tools: most tools in one manifest.
    :param max_arguments: most arguments of one tool.
    :param max_name_length: longest tool name / argument identifier, in characters.
    :param max_text_length: longest description, in characters (longer ones are truncated).
    """

    max_bytes: int = 4 * IPFS_CHUNK_SIZE
    max_depth: int = 64
    max_tools: int = 1000
    max_arguments: int = 100
    max_name_length: int = 128
    max_text_length: int = 10_000


DEFAULT_LIMITS = Limits()
