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
    :param max_tools: most tools in one manifest; also most tool objects read from the
        JSON of its top-level ``description`` (those past it are not read).
    :param max_arguments: most arguments of one tool (and most properties of an
        ``input.schema`` read).
    :param max_argument_problems: most problems listed for the arguments of one tool;
        one ``problems_truncated`` problem counts the rest (an error when any of them
        withholds the tool, so it is withheld as it would be with all of them listed).
    :param max_name_length: longest tool name / argument identifier, in characters.
    :param max_text_length: longest description, in characters (longer ones are truncated).
    :param max_problems: most problems reported for one manifest: errors first, then
        warnings, in document order; one ``problems_truncated`` warning counts the rest
        by code. Tools are withheld for their errors before the cut, so it never offers
        one.
    """

    max_bytes: int = 4 * IPFS_CHUNK_SIZE
    max_depth: int = 64
    max_tools: int = 1000
    max_arguments: int = 100
    max_argument_problems: int = 10
    max_name_length: int = 128
    max_text_length: int = 10_000
    max_problems: int = 100


DEFAULT_LIMITS = Limits()
