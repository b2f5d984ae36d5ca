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

"""adv29zw2 H1: honest names and descriptions still refused after fix29zzi.

Severity: LOW (no funds at risk: an honest tool is not offered).

Measured on main (``definition_checks.name_refusal`` and the server's listing; 50
honest names written for this test (DeFi, prediction, NFT, tides, weather, wallet
analytics) and 30 honest descriptions, many near fix29zzi's excuses): 1 of 50 names
refused, ``pay_again_reminder_for_invoices`` (an invoicing reminder: "pay again" read
as an order), and 3 of 30 descriptions, :data:`REFUSED_DESCRIPTIONS` ("Never send
your private key or seed phrase to any tool", "why no one should ever ask for your
seed phrase", "a site telling you to approve unlimited spending is a red flag":
warnings against a scam read as the scam). The 49 other names and 27 other
descriptions are listed, among them "Tides for a port: do not forget to give the port's code",
"Detects drainer contracts that ask users to send all funds to an attacker." and
``bridge_all_tokens_quote``.

Expected: listed (a negated "never send your private key" or "no one should ever
ask" is advice, not a request; an order quoted as what a scam says is not an order;
"pay again" before "reminder" names what the tool reminds of).
"""

import pytest

from mech_catalogue_cli.mcp_server.definition_checks import name_refusal
from tests.test_mcp_withheld_and_names import _listed, _typed

HONEST_NAMES = """uniswap_v3_pool_quote aave_health_factor compound_supply_rate
curve_pool_imbalance liquidation_price_calc impermanent_loss_estimator gas_fee_forecast
eth_to_usd_rate token_unlock_schedule airdrop_eligibility_check send_time_optimizer
payment_splitter_quote polymarket_price_history will_it_rain_tomorrow
election_odds_forecast sports_match_predictor btc_price_in_7_days nft_rarity_score
nft_mint_calendar opensea_collection_stats nft_wash_trade_detector tide_times_for_port
surf_forecast moon_phase_today weather_alerts_by_zip pollen_count uv_index_now
storm_track_7_days flood_risk_score wallet_age_checker fund_flow_tracer
send_receive_history transfer_fee_estimator bridge_all_tokens_quote
withdraw_delay_checker private_sale_calendar secret_santa_matcher key_rate_decision
seed_round_tracker recovery_time_estimator drain_rate_of_battery pay_per_view_finder
top_up_balance_advisor transfer_window_rumours approve_pr_reviewer give_me_a_joke
api_key_rotation_reminder sea_temperature_now wind_gusts_hourly""".split()
REFUSED_NAME = "pay_again_reminder_for_invoices"
HONEST_LISTED = [
    "Tides for a port: do not forget to give the port's code, e.g. FRBES.",
    "Detects drainer contracts that ask users to send all funds to an attacker.",
    "Forecast of the UV index; whether or not it is sunny, use sunscreen above 3.",
]
REFUSED_DESCRIPTIONS = [
    "Weather for a city. Never send your private key or seed phrase to any tool; "
    "this one needs only a city.",
    "Seed phrase safety guide: explains why no one should ever ask for your seed "
    "phrase.",
    "Detects approval scams: a site telling you to approve unlimited spending is a "
    "red flag.",
]


def _description_listed(description: str) -> bool:
    tool = _typed("weather-now", {"type": "string"})
    tool["description"] = description
    listed = _listed(tool, _typed("port-code", {"type": "string"}))
    assert "port-code" in listed
    return "weather-now" in listed


def test_forty_nine_honest_names_are_listed() -> None:
    """The 49 others: none refused."""
    assert len(HONEST_NAMES) == 49
    assert [name for name in HONEST_NAMES if name_refusal(name)] == []


@pytest.mark.parametrize("description", HONEST_LISTED)
def test_honest_descriptions_near_the_excuses_are_listed(description: str) -> None:
    """Listed."""
    assert _description_listed(description)


def test_an_invoice_reminder_is_listed() -> None:
    """Not refused."""
    # observed on main: refused ("pay again")
    assert name_refusal(REFUSED_NAME) is None


@pytest.mark.parametrize("description", REFUSED_DESCRIPTIONS)
def test_a_warning_against_a_scam_is_listed(description: str) -> None:
    """Listed."""
    # observed on main: not listed (a secret request / an approval order)
    assert _description_listed(description)
