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

"""A catalogue of realistic tools for search tests: mech-predict's own and a few others.

The descriptions paraphrase what valory-xyz/mech-predict's tools do (prediction with and
without web search, market resolution, subject-matter-expert prompts, Stability AI and
OpenAI models); the others (weather, translation, token prices, questions) are written
here. Five mechs: two on the marketplace paid natively (one of them has delivered), one
paid in OLAS, one with no marketplace facts, one from the legacy registry.
"""

from dataclasses import replace
from typing import Dict, List, Optional, Tuple

from mech_catalogue_core.model.catalogue import Catalogue, Manifest, Mech
from mech_catalogue_core.model.market import MechFacts
from mech_catalogue_core.model.tool import Argument, MechRef, Tool
from mech_catalogue_core.model.vocabulary import RegistryKind

NATIVE = "0xba699a34be8fe0e7725e93dcbce1701b0211a8ca61330aaeb8a05bf2ec7abed1"
TOKEN_OLAS = "0x3679d66ef546e66ce9057c4a052f317b135bc8e8c509638f7966edfd4fcf45e9"
REGISTRY = "0x" + "cc" * 20
LEGACY_REGISTRY = "0x" + "dd" * 20

#: name -> (kind, description, arguments as (identifier, description))
TOOLS: Dict[str, Tuple[str, str, Tuple[Tuple[str, str], ...]]] = {
    "prediction-online": (
        "prediction",
        "Estimates the probability that a binary prediction market question resolves "
        "yes, using an OpenAI GPT model and fresh web search results from Google.",
        (),
    ),
    "prediction-offline": (
        "prediction",
        "Estimates the probability that a binary market question resolves yes from the "
        "model's own knowledge, without any web access.",
        (),
    ),
    "claude-prediction-online": (
        "prediction",
        "Anthropic Claude answers a yes/no market question with a probability, after "
        "reading web search results.",
        (),
    ),
    "claude-prediction-offline": (
        "prediction",
        "Anthropic Claude answers a yes/no market question with a probability, offline, "
        "from what the model already knows.",
        (),
    ),
    "prediction-request-rag": (
        "prediction",
        "Retrieval-augmented generation: fetches documents relevant to the question, "
        "embeds them and asks an LLM for p_yes, p_no, confidence and info_utility.",
        (),
    ),
    "resolve-market": (
        "resolve",
        "Decides how a closed prediction market settles: searches news to find whether "
        "the event in the question happened before its deadline.",
        (),
    ),
    "sme-generation-request": (
        "chat",
        "Writes a subject matter expert persona and introduction tailored to a market "
        "question, to prime a forecasting prompt.",
        (),
    ),
    "stabilityai-stable-diffusion-v1-5": (
        "image",
        "Generates a picture from a text prompt with Stability AI's Stable Diffusion "
        "1.5 model.",
        (("height", "image height in pixels"), ("width", "image width in pixels")),
    ),
    "stabilityai-stable-diffusion-xl-beta-v2-2-2": (
        "image",
        "Text-to-image generation with Stable Diffusion XL beta; returns a PNG.",
        (("cfg_scale", "how strictly the image follows the prompt"),),
    ),
    "openai-gpt-4": (
        "chat",
        "Completes a chat prompt with OpenAI's GPT-4 large language model.",
        (("max_tokens", "longest completion, in tokens"),),
    ),
    "openai-gpt-3.5-turbo": (
        "chat",
        "Completes a chat prompt with OpenAI's GPT-3.5 turbo language model.",
        (("max_tokens", "longest completion, in tokens"),),
    ),
    "dall-e-3": (
        "image",
        "OpenAI's DALL-E 3 draws an illustration described in plain words.",
        (),
    ),
    "weather-forecast": (
        "chat",
        "Temperature and rain forecast for a city over the coming days.",
        (("city", "the city name"), ("days", "how many days ahead, 1 to 7")),
    ),
    "translate-text": (
        "chat",
        "Translates a passage between two human languages.",
        (
            ("source_language", "ISO 639-1 code of the passage's language"),
            ("target_language", "ISO 639-1 code to translate into"),
        ),
    ),
    "token-price-oracle": (
        "chat",
        "Returns the USD value of an ERC-20 token from on-chain liquidity pools.",
        (("token_address", "the token contract address"),),
    ),
    "question-generation": (
        "question_generation",
        "Drafts new yes/no prediction market questions from today's news headlines.",
        (),
    ),
}

#: mech id -> the tool names it offers (service ids 1-4 on the complementary registry,
#: agent id 5 on the legacy registry)
OFFERS: Dict[int, Tuple[str, ...]] = {
    1: (
        "prediction-online",
        "prediction-offline",
        "claude-prediction-online",
        "claude-prediction-offline",
        "prediction-request-rag",
        "resolve-market",
        "sme-generation-request",
    ),
    2: (
        "stabilityai-stable-diffusion-v1-5",
        "stabilityai-stable-diffusion-xl-beta-v2-2-2",
        "dall-e-3",
        "prediction-online",
    ),
    3: ("openai-gpt-4", "openai-gpt-3.5-turbo", "translate-text", "prediction-online"),
    4: ("weather-forecast", "token-price-oracle", "question-generation"),
    5: ("prediction-offline", "resolve-market"),
}


def facts(mech_id: int, rate: int, payment_type: str, deliveries: int) -> MechFacts:
    """Return a confirmed marketplace contract of one mech.

    :param mech_id: the service id (also the address's byte).
    :param rate: maxDeliveryRate, smallest unit.
    :param payment_type: the paymentType() hash.
    :param deliveries: delivered requests (3 requests were made).
    :return: the facts.
    """
    return MechFacts(
        address="0x" + f"{mech_id:02x}" * 20,
        service_id=mech_id,
        block=50,
        confirmed=True,
        max_delivery_rate=rate,
        payment_type=payment_type,
        requests=3,
        deliveries=deliveries,
        karma=deliveries,
    )


#: mech id -> its marketplace contracts
MARKET: Dict[int, Tuple[MechFacts, ...]] = {
    1: (facts(1, 10**16, NATIVE, 3),),
    2: (facts(2, 4 * 10**15, NATIVE, 0),),
    3: (facts(3, 5 * 10**18, TOKEN_OLAS, 2),),
    4: (),
}


def ref(mech_id: int) -> MechRef:
    """Return a mech's ref.

    :param mech_id: 1-4: services of the complementary registry; 5: the legacy agent.
    :return: the ref.
    """
    if mech_id == 5:
        return MechRef(100, RegistryKind.LEGACY_MECH, LEGACY_REGISTRY, 5)
    return MechRef(100, RegistryKind.COMPLEMENTARY_SERVICE, REGISTRY, mech_id)


def tool(name: str, description: Optional[str] = None) -> Tool:
    """Return one corpus tool.

    :param name: a key of :data:`TOOLS`.
    :param description: replaces its description when given.
    :return: the tool.
    """
    kind, text, arguments = TOOLS[name]
    return Tool(
        name=name,
        kind=kind,
        description=text if description is None else description,
        arguments=tuple(
            Argument(identifier=i, type="str", description=d) for i, d in arguments
        ),
    )


def mechs() -> List[Mech]:
    """Return the corpus's mechs, in offer order.

    :return: the mechs.
    """
    built = []
    for mech_id, names in OFFERS.items():
        mech = Mech.from_manifest(
            ref(mech_id),
            Manifest(name=f"mech {mech_id}", tools=tuple(tool(n) for n in names)),
            digest="0x" + f"{mech_id:02x}" * 32,
        )
        built.append(replace(mech, marketplace=MARKET.get(mech_id, ())))
    return built


def corpus() -> Catalogue:
    """Return the corpus catalogue.

    :return: the catalogue.
    """
    return Catalogue.build(mechs())
