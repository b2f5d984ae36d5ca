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

"""adv29zu2 F1: honest tools an engineer running a mech would name or describe refused.

Severity: LOW-MEDIUM (no funds at risk: honest tools are not offered, each refusal
saying the tool orders the model or asks for a secret).

fix29zzb reads a name without its separators against order phrases and secret nouns
(``squashed_names``: substrings, so a phrase may straddle words: ``repay against``
holds "pay again", ``center your`` "enter your", ``fingerprint your`` "print your"),
and a description's payment words with a model or "you" before them
(``assistant_duties``), including "pay twice", "pay again", "N times", "each time"
whatever the verb's negation or what is compared.

Measured on main (``definition_checks.name_refusal``, 100 honest names written for
this test: 58 everyday mech names (prediction tools, prices, weather, translation,
code, DeFi quotes) and 42 more (32 near the vocabulary: approval and drainer
scanners, payment guards, retries, memory aids, travel, loans; 10 everyday)): 0 of the
58 and 32 of the 42 refused (all 32 near ones), e.g. ``revoke_unlimited_approvals``,
``set_approval_for_all_monitor``,
``drain_wallet_detector``, ``pay_twice_detector``, ``retry_until_success``,
``study_mnemonics``, ``medical_mnemonics``, ``places_you_must_visit``,
``center_your_text``, ``fingerprint_your_device``, ``repay_against_loan``,
``secret_key_rotation_policy``. Of 20 honest descriptions of paid tools, 8 refuse the
tool (``duty_refusal``), among them "If the delivery times out, call again with the
same arguments: you will not pay twice.", "An agent that retries should not pay
again: the server reads the earlier answer.", "The assistant pays the mech's price
each time it calls this tool." and "Compared with calling GPT-4 directly, the agent
pays 3 times less per answer."

Expected: these listed (a phrase matched on word boundaries of the name's own words
where it has separators; a negated or comparative "pay twice / again / N times" not a
duty; a scanner's or detector's subject words as ``SECRET_SUBJECTS`` are).
"""

from typing import List

import pytest

from mech_catalogue_cli.mcp_server.definition_checks import duty_refusal, name_refusal

EVERYDAY_NAMES = """prediction-offline prediction-online prediction-online-sme
prediction-request-rag prediction-request-reasoning claude-prediction-offline
claude-prediction-online openai-gpt-4o-2024-08-06 stabilityai-stable-diffusion-xl-1024-v1-0
deepmind-optimization-strong gemini-prediction superforcaster get-token-price
get_eth_balance erc20-balance nft-floor-price gas-price-oracle weather-forecast tide-table
translate-text summarize-url sentiment-analysis image-caption ocr-extract wallet-risk-score
contract-audit-summary token-holder-stats dex-liquidity-depth bridge-fee-quote
swap-route-quote lending-rate-compare staking-apr yield-farm-scan
governance-proposal-summary approval_risk_report wallet_drainer_alert phishing_site_check
double_payment_guard duplicate_charge_finder webhook-retry-status loan_repayment_plan
ssh-key-fingerprint pgp-public-key-lookup movie-spoiler-filter password-strength-meter
passphrase-entropy seed-phrase-validator bip39-wordlist email-summary calendar-free-slots
news-digest arxiv-search code-review unit-test-writer sql-explainer regex-builder
json-validator csv-to-chart""".split()
NEAR_NAMES = (
    """revoke_unlimited_approvals unlimited_approval_scanner find_unlimited_allowances
infinite_approval_checker set_approval_for_all_monitor setApprovalForAll-events
unlimited_spending_alerts drain_wallet_detector sweep_the_wallet_analytics
pay_twice_detector call_twice_guard retry_until_success http_retry_until_ok
cron_retry_until_done study_mnemonics medical_mnemonics mnemonic_memory_aid
mnemonic_device_maker mnemonics_for_kids language_mnemonics places_you_must_visit
where_you_are_now center_your_text fingerprint_your_device print_your_ticket
repay_against_loan recall_against_baseline repay_again_schedule
secret_key_rotation_policy wallet_keyring_status do_not_tell_spoilers
dont_tell_me_the_ending pdf-to-text youtube-transcript crypto-news-sentiment
polymarket-odds omen-market-resolver market-maker-quote ens-resolve address-labels
tx-decoder abi-lookup""".split()
)
HONEST_DESCRIPTIONS = [
    "Answers a prediction question. If the delivery times out, call again with the "
    "same arguments: you will not pay twice.",
    "If the mech fails, you pay nothing and can call again and pay only for a "
    "delivered answer.",
    "Compared with calling GPT-4 directly, the agent pays 3 times less per answer.",
    "The agent sends the request to the marketplace contract "
    "0x735FAAb1c4Ec41128c367AFb5c3baC73509f70bB and waits for delivery.",
    "The assistant pays the mech's price each time it calls this tool.",
    "An agent that retries should not pay again: the server reads the earlier answer.",
    "Use this to see whether you have to approve unlimited spending before a swap on "
    "Uniswap.",
    "Helps you decide whether to send 0.5 ETH first or wait for the gas price to drop.",
]


def _refused_names(names: List[str]) -> List[str]:
    return [name for name in names if name_refusal(name)]


def test_everyday_names_are_listed() -> None:
    """58 everyday names: none refused."""
    assert len(EVERYDAY_NAMES) == 58
    assert not _refused_names(EVERYDAY_NAMES)


def test_honest_names_near_the_vocabulary_are_listed() -> None:
    """42 more honest names (32 near the vocabulary): each listed."""
    assert len(NEAR_NAMES) == 42
    # observed on main: 32 refused
    assert not _refused_names(NEAR_NAMES), len(_refused_names(NEAR_NAMES))


@pytest.mark.parametrize("index", range(len(HONEST_DESCRIPTIONS)))
def test_honest_descriptions_are_listed(index: int) -> None:
    """Each description's tool listed."""
    tool = {
        "name": "prediction-online",
        "description": HONEST_DESCRIPTIONS[index],
        "inputSchema": {"type": "object"},
    }
    # observed on main: "refused (instruction_like_text): the tool's text puts a
    # payment on the model ..."
    assert duty_refusal(tool) is None
