"""A sample mech tool package (mech-catalogue's tutorial): a wallet risk score.

A typed ``run`` signature, the other style of Olas mech tools: mech-catalogue reads the
argument types from the annotations and the defaults from the signature. Never imported
or run by mech-catalogue.
"""

from typing import Any, Dict, List, Optional, Tuple

ALLOWED_TOOLS = ["wallet-risk-score"]
FLAGGED_LABELS = ("mixer", "exploit", "phishing")

MechResponse = Tuple[str, Optional[str], Optional[Dict[str, Any]], Any]


def _score(transactions: List[Dict[str, Any]], threshold: float) -> Dict[str, Any]:
    flagged = [t for t in transactions if t.get("label") in FLAGGED_LABELS]
    score = len(flagged) / max(len(transactions), 1)
    return {"score": score, "risky": score >= threshold, "flagged": len(flagged)}


def run(
    prompt: str,
    wallet: str,
    *,
    lookback_days: int = 30,
    threshold: float = 0.2,
    **kwargs: Any,
) -> MechResponse:
    """Score a wallet.

    Args:
        prompt: what the requester asked, kept in the response.
        wallet: the wallet address to score.
        lookback_days: how many days of transactions to read.
        threshold: the share of flagged transactions above which the wallet is risky.

    Returns:
        the mech response tuple.
    """
    counter_callback = kwargs.get("counter_callback", None)
    transactions = kwargs.get("transactions", [])[: lookback_days * 100]
    result = _score(transactions, threshold)
    result["wallet"] = wallet
    return str(result), prompt, None, counter_callback
