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

"""Where the project's documents are published, for messages and help that cite them.

A CLI installed from a wheel has no ``docs/`` folder, so a message naming
``docs/manifest-spec.md`` pointed nowhere; a URL works with or without a checkout.
"""

#: the project's repository (the GitHub namespace ``server.json`` registers the MCP server
#: under, ``io.github.mech-catalogue/mech-catalogue``); messages and help cite its pages,
#: which a CLI installed from a wheel (no ``docs/`` folder) can open too
PROJECT_URL = "https://github.com/mech-catalogue/mech-catalogue"
#: the project's documents: ``f"{DOCS_URL}/manifest-spec.md"`` is docs/manifest-spec.md
DOCS_URL = f"{PROJECT_URL}/blob/main/docs"
#: the manifest specification every schema and type message cites
MANIFEST_SPEC_URL = f"{DOCS_URL}/manifest-spec.md"
