// Copyright 2026 mech-catalogue contributors. Licensed under the Apache License, Version 2.0.
//
// How the chain facts of an offer read (GET /offers, /tools/<name>, /mechs/<key>): a
// contract is MechFacts.to_dict() with "payment" (Payment.to_dict()) and "liveness".

/**
 * The price: whole units with the asset when the server knows the unit (a payment type it
 * names, or a legacy mech: wei of the native token), else the smallest unit of an
 * unknown asset.
 */
export function priceText(contract, rawPrice = null) {
  const payment = contract && contract.payment;
  if (payment && payment.price_units) return String(payment.price_units);
  const price = rawPrice ?? (contract && contract.max_delivery_rate);
  if (price === null || price === undefined) return "—";
  return `${price} (smallest unit)`;
}

/** The payment: its name as `list` prints it and how it is paid, e.g. "native (value)". */
export function paymentText(contract) {
  const payment = contract && contract.payment;
  if (!payment) return "—";
  const name = contract.payment_name || "—";
  const way = payment.way && payment.way !== "unknown" ? ` (${payment.way})` : "";
  const status = payment.status && payment.status !== "unchecked" ? `: ${payment.status}` : "";
  return `${name}${way}${status}`;
}

/** Karma as read, "—" when unread. */
export function karmaText(contract) {
  return contract && contract.karma !== null && contract.karma !== undefined ? String(contract.karma) : "—";
}

/** The block of the mech's latest delivery (what "delivered within" and "recent" read), "—" when none is known. */
export function lastDeliveryText(contract) {
  const block = contract && contract.last_delivery_block;
  return block !== null && block !== undefined ? `block ${block}` : "—";
}

/** Liveness and the counters it comes from, e.g. "delivering (3 of 3)". */
export function livenessText(contract) {
  if (!contract) return "no marketplace facts";
  const liveness = String(contract.liveness || "unread").replaceAll("_", " ");
  if (contract.deliveries === null || contract.deliveries === undefined) return liveness;
  return `${liveness} (${contract.deliveries} of ${contract.requests ?? "?"} delivered)`;
}

/** A mech key "<chain>:<registry kind>:<registry address>:<id>" shortened for a table. */
export function mechLabel(key) {
  const parts = String(key).split(":");
  return parts.length === 4 ? `${parts[1].replaceAll("_", " ")} #${parts[3]}` : String(key);
}
