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

"""Reading an overrides file, and saying why generation from it failed (generate, publish)."""

from pathlib import Path
from typing import Any, Optional

import yaml
from mech_catalogue_core.derive.generate import (
    GenerateError,
)
from mech_catalogue_core.model import problems as P

from .output import CliFailure
from .sources import read_file

#: problems that mean the overrides file, not the packages, is wrong
OVERRIDE_CODES = frozenset(
    (P.INVALID_OVERRIDES, P.UNKNOWN_OVERRIDE_TOOL, P.UNKNOWN_OVERRIDE_ARGUMENT)
)


def read_overrides(path: Optional[str]) -> Any:
    """Read an overrides file (YAML, hence JSON too).

    :param path: ``--overrides``, or None.
    :return: the decoded document (checked by ``generate_manifest``), or None.
    :raises CliFailure: ``invalid_overrides`` when it is not YAML/JSON text, or when it
        cannot be read (``file_not_readable``, ``too_large``).
    """
    if path is None:
        return None
    data = read_file(Path(path))
    try:
        return yaml.safe_load(data.decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise CliFailure(
            P.INVALID_OVERRIDES, f"{path} is not valid YAML/JSON: {exc}."
        ) from exc


def failure_code(error: GenerateError, overrides_path: Optional[str]) -> str:
    """Return the code of a failed generation: the overrides' fault, or the manifest's.

    :param error: what ``generate_manifest`` raised.
    :param overrides_path: ``--overrides``, if given.
    :return: ``invalid_overrides`` when every problem is the overrides' own, else
        ``invalid_manifest``.
    """
    if overrides_path and all(p.code in OVERRIDE_CODES for p in error.problems):
        return P.INVALID_OVERRIDES
    return "invalid_manifest"


def generate_failure(
    error: GenerateError, overrides_path: Optional[str], outcome: str
) -> str:
    """Return the headline of a failed generation: the overrides, or the manifest.

    :param error: what ``generate_manifest`` raised.
    :param overrides_path: ``--overrides``, if given.
    :param outcome: what did not happen (e.g. "nothing was written").
    :return: one sentence.
    """
    if overrides_path and all(p.code in OVERRIDE_CODES for p in error.problems):
        return (
            f"{overrides_path} does not match the tool packages "
            f"({len(error.problems)} problem(s) below); {outcome}."
        )
    return f"The generated manifest is not valid; {outcome}."
