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

"""Shared code of the publish behaviours: settings, the generated manifest, registry reads."""

from abc import ABC
from dataclasses import replace
from typing import Any, Generator, List, Optional, Tuple, cast

from mech_catalogue_core.adapters.package_folder import derive_package
from mech_catalogue_core.chain.registry import (
    Call,
    ChainReadError,
    RegistryDecodeError,
)
from mech_catalogue_core.derive.derive import (
    DeriveError,
)
from mech_catalogue_core.derive.generate import (
    GenerateError,
    generate_manifest,
)
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
)
from mech_catalogue_core.publish.publish import (
    INVALID_MANIFEST,
    PreparedManifest,
    PublishError,
    PublishTarget,
    decode_single,
    prepare_manifest,
)

from packages.mech_catalogue.skills.manifest_publish_abci.params import (
    PublishSettings,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.base import (
    PublishSynchronizedData,
)
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.base import (
    ToolMetadataBaseBehaviour,
)

#: the ``valory/ipfs`` connection adds with IPFSTool's defaults: CIDv0, dag-pb leaves
CONNECTION_CID_VERSION = 0


def as_call(call: Call, output_type: str) -> Call:
    """Give a publish call its one return type, for a Multicall2 batch.

    :param call: the call.
    :param output_type: its one return type.
    :return: the batch entry.
    """
    return replace(call, output_types=(output_type,))


def decode_return(call: Call, data: bytes) -> Any:
    """Decode the one return value of a call made by :func:`as_call`, with its type.

    Bytes that are not one value of that type raise :func:`decode_single`'s PublishError.

    :param call: the batch entry, carrying its return type.
    :param data: the call's return data.
    :return: the value.
    """
    return decode_single(call.output_types[0], data)


class PublishBaseBehaviour(
    ToolMetadataBaseBehaviour, ABC
):  # pylint: disable=too-many-ancestors
    """Base of the publish behaviours."""

    @property
    def synchronized_data(self) -> PublishSynchronizedData:
        """Get the publish view of the synchronized data.

        :return: the publish view of the synchronized data.
        """
        return cast(
            PublishSynchronizedData,
            PublishSynchronizedData(super().synchronized_data.db),
        )

    @property
    def publish_settings(self) -> PublishSettings:
        """Get the publish parameters (disabled when the params model has none).

        :return: the settings.
        """
        return cast(
            PublishSettings, getattr(self.params, "publish", None) or PublishSettings()
        )

    @property
    def target(self) -> PublishTarget:
        """Get the registry and id to update (only when enabled).

        :return: the target.
        """
        target = self.publish_settings.target
        assert (
            target is not None
        ), "publish target read while publishing is disabled"  # nosec
        return target

    @property
    def safe_address(self) -> str:
        """Get the service Safe (the sender of the update).

        :return: ``safe_contract_address`` of the synchronized data, "" when unset.
        """
        return str(self.synchronized_data.db.get("safe_contract_address", "") or "")

    def prepared_manifest(self) -> PreparedManifest:
        """Generate the service's manifest from its tool packages and prepare it.

        Deterministic (canonical JSON), so every agent gets the same bytes and digest.

        :return: the prepared manifest.
        :raises PublishError: INVALID_MANIFEST when a package cannot be derived or the
            manifest is invalid (the problems name what).
        """
        settings = self.publish_settings
        try:
            packages = [derive_package(path) for path in settings.tool_packages]
            document, _ = generate_manifest(packages, settings.overrides)
        except DeriveError as exc:
            raise PublishError((exc.problem,)) from exc
        except GenerateError as exc:
            raise PublishError(exc.problems) from exc
        except OSError as exc:
            raise PublishError(
                INVALID_MANIFEST,
                f"A tool package in publish_tool_packages is unreadable: {exc}.",
            ) from exc
        return prepare_manifest(document, CONNECTION_CID_VERSION)

    def read_calls(
        self, calls: List[Call]
    ) -> Generator[None, None, Optional[List[Tuple[bool, bytes]]]]:
        """Run calls as one Multicall2 batch at the latest block.

        :param calls: the calls.
        :yield: while waiting for the ledger connection.
        :return: ``[(success, data)]``, None when the chain could not be read (logged).
        """
        try:
            _, results = yield from self.multicall(calls, None)
        except (ChainReadError, RegistryDecodeError, ValueError) as exc:
            self.context.logger.error(f"publish: registry read failed: {exc}")
            return None
        return results

    @staticmethod
    def needs_service_registry(target: PublishTarget) -> bool:
        """Tell whether the id's existence is checked in a ServiceRegistry.

        :param target: the target.
        :return: true for ComplementaryServiceMetadata.
        """
        return target.kind == REGISTRY_COMPLEMENTARY_SERVICE
