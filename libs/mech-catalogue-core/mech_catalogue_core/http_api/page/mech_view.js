// Copyright 2026 mech-catalogue contributors. Licensed under the Apache License, Version 2.0.
//
// The mech view (#/mech/<key>): GET /mechs/<key>. The page's facts first: its status,
// digest and marketplace contracts (price, payment); then what quotes its manifest,
// bounded: its tools, its withheld tools and the problems of its manifest.

import { getJson, segment } from "./api.js";
import { el, errorBox, show, strangerText, table } from "./dom.js";
import { karmaText, livenessText, paymentText, priceText } from "./facts.js";
import { searchHash } from "./search_view.js";

function problemsList(problems) {
  if (!problems.length) return el("p", { class: "muted", text: "No problems." });
  return el(
    "ul",
    { id: "problems" },
    problems.map((problem) =>
      el(
        "li",
        { class: `problem problem-${problem.severity === "error" ? "error" : "warning"}` },
        el("code", { text: String(problem.code) }),
        ` (${problem.severity}) at `,
        el("code", { class: "text", text: String(problem.path || "/") }),
        ": ",
        strangerText("span", { class: "problem-message" }, problem.message),
      ),
    ),
  );
}

function toolsList(names, id, linked) {
  if (!names.length) return el("p", { class: "muted", id, text: "None." });
  return el(
    "ul",
    { id },
    names.map((name) => el("li", {}, linked ? el("a", { href: `#/tool/${segment(name)}`, class: "tool-link text", text: name }) : el("span", { class: "text", text: name }))),
  );
}

/** Render the mech view. */
export async function renderMech(view, key) {
  show(view, el("p", { class: "muted", text: "Loading the mech…" }));
  let mech;
  try {
    mech = await getJson(`mechs/${segment(key)}`);
  } catch (error) {
    show(view, el("h2", { class: "key", text: key }), errorBox(error.message));
    return;
  }
  const contracts = mech.marketplace.map((contract) => [
    { class: "key", text: contract.address },
    { class: "number price", text: priceText(contract) },
    { class: "payment", text: paymentText(contract) },
    { class: "number karma", text: karmaText(contract) },
    { class: "liveness", text: livenessText(contract) },
  ]);
  show(
    view,
    el("h2", { id: "mech-key", class: "key", text: mech.key }),
    el(
      "p",
      {},
      "status: ",
      el("strong", { id: "mech-status", text: mech.status }),
      mech.stale ? " · stale (its manifest digest was read before the catalogue's block)" : "",
      mech.in_views ? "" : " · not in the shared-state views",
    ),
    el("p", { class: "muted key", text: `digest ${mech.digest || "—"} · CID ${mech.cid || "—"}` }),
    el("h3", { text: "Marketplace contracts" }),
    contracts.length ? table(["contract", "price", "payment", "karma", "liveness"], contracts, { id: "contracts" }) : el("p", { class: "muted", text: "No marketplace facts were read for this mech." }),
    el("h3", { text: "Tools" }),
    toolsList(mech.tools, "mech-tools", true),
    el("p", {}, el("a", { href: searchHash({ mech: mech.key }), text: "search this mech's offers" })),
    el("h3", { text: "Withheld tools (not offered until their errors are fixed)" }),
    toolsList(mech.withheld, "withheld", false),
    el("h3", { text: "Problems" }),
    problemsList(mech.problems),
  );
}
