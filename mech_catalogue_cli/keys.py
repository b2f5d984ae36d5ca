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

"""The signing key of the commands that send transactions (``publish``, ``mcp``).

One order everywhere: ``--key-file``, else the command's environment variable, else the
devnet account the command uses there. A key is checked before use and never appears in
output: a bad one is named by where it was read.
"""

import os
from pathlib import Path
from typing import Optional

from eth_account import Account

# re-exported for the modules that import them from here
from .adapters.urls import (  # noqa: F401 pylint: disable=unused-import
    redacted_url,
    without_url,
)
from .output import CliFailure
from .sources import read_file

INVALID_KEY = "invalid_key"
#: a hex key is 66 characters; anything near this is not a key file
MAX_KEY_FILE_BYTES = 4096


def load_key(
    key_file: Optional[str], env_name: str, devnet_key: str = ""
) -> Optional[str]:
    """Return the hex private key from the first source that gives one.

    :param key_file: ``--key-file`` (None when not given).
    :param env_name: the command's environment variable (e.g. ``MECH_CATALOGUE_MCP_KEY``).
    :param devnet_key: the devnet account's key ("" when not on the devnet).
    :return: the key text (checked to be a secp256k1 key), or None when no source gives one.
    :raises CliFailure: ``invalid_key`` naming where it was read, never its content;
        ``file_not_readable`` / ``too_large`` for a key file that cannot be read or is over
        4 KiB.
    """
    if key_file:
        text = read_file(Path(key_file), cap=MAX_KEY_FILE_BYTES)
        key, where = text.decode("ascii", "replace").strip(), key_file
    elif os.environ.get(env_name):
        key, where = os.environ[env_name].strip(), f"${env_name}"
    elif devnet_key:
        key, where = devnet_key, "the devnet"
    else:
        return None
    try:
        Account.from_key(key)  # pylint: disable=no-value-for-parameter
    except (ValueError, TypeError):
        # from None: the exception's text could quote the key
        raise CliFailure(  # pylint: disable=raise-missing-from
            INVALID_KEY, f"{where} does not hold a hex secp256k1 private key."
        ) from None
    return key
