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

"""More spellings of an argument asking for a secret (issue #29, second review)."""

import pytest
from mech_catalogue_core.model.untrusted_text import folded, secret_asked


@pytest.mark.parametrize(
    "text",
    [
        "your wallet mnemonics",
        "the backup phrase of the account",
        "paste your BIP39 words",
        "contents of the keystore JSON",
        "walletKeyfile",
        "the hex key of the signer",
        "session_cookie",
        "a JWT for the dashboard",
        "the OTP sent by SMS",
        "your 2FA code",
        "card PIN",
        "pkey",
        "la clave privada de la cartera",
        "la clé privée",
        "Ihr privater Schlüssel",
        "a sua senha",
        "pr\u0456vate_key",  # Cyrillic i
        "\u0440assword",  # Cyrillic r
    ],
)
def test_more_secret_spellings_are_found(text: str) -> None:
    """Plurals, backups, key files, web and 2FA secrets, other languages, homoglyphs."""
    assert secret_asked(text), text


@pytest.mark.parametrize(
    "text",
    [
        "a spinning top",
        "pinned version of the model",
        "the opinion to summarise",
        "cookie recipe title",
        "at most 12 words of summary",
        "the café's name",
        "jwtlike identifier",
    ],
)
def test_ordinary_texts_stay_ordinary(text: str) -> None:
    """Words containing the new terms, and accented prose, ask for nothing."""
    assert secret_asked(text) is None, text


def test_folding_is_ascii_identity_and_maps_homoglyphs() -> None:
    """ASCII is unchanged; accents dropped; a Cyrillic letter read as its Latin twin."""
    assert folded("plain-ascii_1") == "plain-ascii_1"
    assert folded("clé") == "cle" and folded("pr\u0456vate") == "private"
