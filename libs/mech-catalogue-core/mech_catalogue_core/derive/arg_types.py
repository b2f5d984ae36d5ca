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

"""Typing derived arguments: which evidence wins, and the model's type term.

Sources of a type, most reliable first (:data:`SOURCE_RANK`): an annotation on the
parameter or assignment, a conversion such as ``int(kwargs["x"])``, a literal default, a
runtime convention (``prompt`` is text).
"""

from mech_catalogue_core.model.types import (
    ANY,
    normalise_type,
)

#: ``int(kwargs["x"])`` says x is numeric; ``str()``/``bool()`` accept anything, so say nothing.
CONVERSIONS = {"int": "int", "float": "float"}
#: Precedence when several sources give a type: annotation > conversion > flow (the
#: annotated parameter of a module function the value is passed to) > literal default >
#: runtime convention.
SOURCE_RANK = {
    "annotation": 5,
    "conversion": 4,
    "flow": 3,
    "default": 2,
    "convention": 1,
    "": 0,
}


def model_type(derived_type: str, nullable: bool) -> str:
    """Return the model's type term for a derived type.

    :param derived_type: the derived vocabulary term (``any`` when unknown).
    :param nullable: whether None is a possible value.
    :return: the normalised term, ``optional[T]`` when nullable and known.
    """
    term = normalise_type(derived_type) or ANY
    if nullable and term != ANY and not term.startswith("optional["):
        term = f"optional[{term}]"
    return term
