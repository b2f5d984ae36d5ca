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

"""The JSON Schema keywords whose values are schemas: the one table every walker uses.

JSON Schema 2020-12 (Core, section 10 "A Vocabulary for Applying Subschemas"; Validation,
``contentSchema``), plus draft-07's ``additionalItems``, which manifests still use and
:mod:`.schema_refs` translates. :mod:`.schema_refs` rewrites manifest schemas with it, and
the exporters (:mod:`..exporters.schemas`, :mod:`..exporters.conformance`) walk exported
schemas with it, so a keyword one of them follows the others follow too.
"""

#: keywords whose value is one schema
SUBSCHEMA_ONE = (
    "items",
    "additionalItems",
    "additionalProperties",
    "propertyNames",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
)
#: keywords whose value maps names to schemas
NAMED_SUBSCHEMAS = ("properties", "patternProperties", "dependentSchemas")
#: keywords whose value is a list of schemas
SUBSCHEMA_LIST = ("allOf", "anyOf", "oneOf", "prefixItems")
#: where schemas keep reusable definitions (draft-07 and earlier: ``definitions``)
DEFINITIONS = ("$defs", "definitions")
