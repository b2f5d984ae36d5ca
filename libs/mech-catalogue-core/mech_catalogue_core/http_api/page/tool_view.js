// Copyright 2026 mech-catalogue contributors. Licensed under the Apache License, Version 2.0.
//
// The tool view (#/tool/<name>): GET /tools/<name>. The page's facts first: every offer
// (the mech, its price with asset and units, payment way, karma, deliveries and the block
// of its latest delivery) and the server's warnings; then the mechs' text, bounded: the
// tool as served (its MCP Tool: the first offer's schema), its description, and its input
// schema as a form with the arguments as JSON to copy.

import { getJson, segment } from "./api.js";
import { el, errorBox, show, strangerText, table } from "./dom.js";
import { karmaText, lastDeliveryText, livenessText, mechLabel, paymentText, priceText } from "./facts.js";
import { schemaForm } from "./schema_form.js";
import { searchHash } from "./search_view.js";

const META_KEY = "io.olas/mech-tool";

function offerRows(offer) {
  const mech = offer.mech;
  const key = mech ? `${mech.chain_id}:${mech.registry_kind}:${mech.registry_address}:${mech.mech_id}` : "";
  const contracts = offer.marketplace.length ? offer.marketplace : [null];
  return contracts.map((contract) => [
    key ? el("a", { href: `#/mech/${segment(key)}`, class: "mech-link", title: key, text: mechLabel(key) }) : "—",
    { class: "key", text: contract ? contract.address : "no marketplace contract" },
    { class: "number price", text: priceText(contract) },
    { class: "payment", text: paymentText(contract) },
    { class: "number karma", text: karmaText(contract) },
    { class: "liveness", text: livenessText(contract) },
    { class: "number last-delivery", text: lastDeliveryText(contract) },
    offer.same_as_served ? "as served" : "other arguments",
  ]);
}

function warningsList(meta) {
  const warnings = Array.isArray(meta.warnings) ? meta.warnings : [];
  if (!warnings.length) return null;
  return el(
    "ul",
    { class: "warnings" },
    warnings.map((warning) => el("li", { class: "problem-warning" }, el("code", { text: String(warning.code) }), " ", strangerText("span", { class: "warning-message" }, warning.message))),
  );
}

/** Render the tool view; `cursor` pages through the offers. */
export async function renderTool(view, name, cursor) {
  show(view, el("p", { class: "muted", text: "Loading the tool…" }));
  let answer;
  try {
    answer = await getJson(`tools/${segment(name)}`, { cursor });
  } catch (error) {
    show(view, el("h2", { class: "text", text: name }), errorBox(error.message), el("a", { href: "#/search", text: "back to the search" }));
    return;
  }
  const mcp = answer.mcp || {};
  const meta = (mcp._meta && mcp._meta[META_KEY]) || {};
  const { form, output } = schemaForm(mcp.inputSchema);
  const more = answer.nextCursor
    ? el("a", { id: "more-offers", href: `#/tool/${segment(name)}?cursor=${encodeURIComponent(answer.nextCursor)}`, text: "more offers" })
    : null;
  show(
    view,
    el("h2", { id: "tool-name", class: "text", text: answer.name }),
    el("p", { class: "muted" }, "kind: ", el("span", { id: "tool-kind", text: meta.kind || "none given" }), ` · ${answer.offer_count} offer(s) · MCP name `, el("code", { text: String(mcp.name || "") })),
    el("h3", { text: "Offers" }),
    table(["mech", "contract", "price", "payment", "karma", "liveness", "last delivery", "arguments"], answer.offers.flatMap(offerRows), { id: "offers" }),
    el("nav", { class: "pages" }, more, " ", el("a", { href: searchHash({ q: answer.name }), text: "search similar" })),
    warningsList(meta),
    el("h3", { text: "Description (the mech's words)" }),
    strangerText("p", { id: "tool-description" }, mcp.description || ""),
    el("h3", { text: "Arguments" }),
    meta.conflicting_schemas ? el("p", { class: "problem-warning", text: "Some mechs take other arguments under this name: the form follows the first offer ('as served' above)." }) : null,
    form,
    el("h3", { text: "JSON arguments" }),
    output,
  );
}
