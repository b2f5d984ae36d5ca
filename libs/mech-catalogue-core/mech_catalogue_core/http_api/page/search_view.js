// Copyright 2026 mech-catalogue contributors. Licensed under the Apache License, Version 2.0.
//
// The search view (#/search?q=...&kind=...): a search box and filters, and one page of
// matching offers from GET /offers, each with its price, payment way, karma and liveness.

import { getJson, segment } from "./api.js";
import { el, errorBox, show, strangerText, table } from "./dom.js";
import { karmaText, livenessText, mechLabel, paymentText, priceText } from "./facts.js";

/** The query parameters the view keeps in its URL, all passed to GET /offers. */
export const SEARCH_PARAMETERS = ["q", "kind", "payment", "max_price", "mech", "registry", "typed", "callable", "delivering", "delivered_within", "sort", "cursor"];

/** The hash of a search: "#/search?..." with the non-empty parameters. */
export function searchHash(parameters) {
  const query = new URLSearchParams();
  for (const name of SEARCH_PARAMETERS) {
    const value = parameters[name];
    if (value !== undefined && value !== null && value !== "") query.set(name, String(value));
  }
  const text = query.toString();
  return text ? `#/search?${text}` : "#/search";
}

// anyLabel null: no "any" option (a menu that always has a value, as sort)
function choice(name, label, values, current, anyLabel = "any") {
  const options = anyLabel === null ? [] : [el("option", { value: "", text: anyLabel, selected: !current })];
  const known = new Set(values);
  if (current && !known.has(current)) values = [...values, current];
  for (const value of values) options.push(el("option", { value, text: value, selected: value === current }));
  return el("label", {}, label, el("select", { name }, options));
}

function filtersForm(parameters, choices) {
  const form = el(
    "form",
    { class: "filters", role: "search", id: "search-form" },
    el("label", {}, "words", el("input", { type: "search", name: "q", value: parameters.q || "", maxlength: "256", placeholder: "image generation, prediction…" })),
    el("label", {}, "kind", el("input", { name: "kind", value: parameters.kind || "", maxlength: "64", placeholder: "prediction, image…" })),
    choice("payment", "payment", choices.payment || [], parameters.payment || ""),
    el("label", {}, "max price (smallest unit, wei for native)", el("input", { name: "max_price", value: parameters.max_price || "", inputmode: "numeric", pattern: "[0-9]{1,18}" })),
    el("label", {}, "mech (key or address)", el("input", { name: "mech", value: parameters.mech || "" })),
    choice("registry", "registry", choices.registry || [], parameters.registry || ""),
    choice("typed", "arguments", ["true", "false"], parameters.typed || "", "typed or not"),
    el("label", { class: "check" }, el("input", { type: "checkbox", name: "callable", value: "true", checked: parameters.callable === "true" }), "callable now"),
    el("label", { class: "check" }, el("input", { type: "checkbox", name: "delivering", value: "true", checked: parameters.delivering === "true" }), "has delivered"),
    el("label", {}, "delivered within (blocks)", el("input", { name: "delivered_within", value: parameters.delivered_within || "", inputmode: "numeric", pattern: "[0-9]{1,18}" })),
    choice("sort", "sort", choices.sort || ["relevance", "price"], parameters.sort || "relevance", null),
    el("button", { type: "submit", text: "Search" }),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const next = {};
    for (const name of SEARCH_PARAMETERS) {
      const value = data.get(name);
      if (typeof value === "string" && value.trim() !== "") next[name] = name === "q" ? value : value.trim();
    }
    window.location.hash = searchHash(next);
  });
  return form;
}

function offerRow(offer) {
  const contract = offer.contract;
  return [
    el("a", { href: `#/tool/${segment(offer.tool)}`, class: "tool-link text", text: offer.tool }),
    offer.kind || "",
    el("a", { href: `#/mech/${segment(offer.mech)}`, class: "mech-link", title: offer.mech, text: mechLabel(offer.mech) }),
    { class: "number price", text: priceText(contract, offer.price) },
    { class: "payment", text: offer.payments.length ? paymentText(contract) : "not callable now" },
    { class: "number karma", text: karmaText(contract) },
    { class: "liveness", text: livenessText(contract) },
    offer.typed ? "typed" : "free text",
    strangerText("div", { class: "description" }, offer.description),
  ];
}

/** Render the search view for the parameters of its hash. */
export async function renderSearch(view, parameters) {
  show(view, el("p", { class: "muted", text: "Searching…" }));
  let answer = null;
  let failure = null;
  try {
    answer = await getJson("offers", parameters);
  } catch (error) {
    failure = error;
  }
  const choices = (answer && answer.choices) || {};
  const parts = [filtersForm(parameters, choices)];
  if (failure) {
    parts.push(errorBox(failure.message));
  } else {
    parts.push(el("p", { id: "result-count", text: `${answer.total} matching offers (price: per request)` }));
    parts.push(
      table(
        ["tool", "kind", "mech", "price", "payment", "karma", "liveness", "arguments", "description"],
        answer.offers.map(offerRow),
        { id: "results" },
      ),
    );
    const links = [];
    if (parameters.cursor) links.push(el("a", { href: searchHash({ ...parameters, cursor: "" }), text: "first page" }), " ");
    if (answer.nextCursor) links.push(el("a", { id: "next-page", href: searchHash({ ...parameters, cursor: answer.nextCursor }), text: "next page" }));
    parts.push(el("nav", { class: "pages" }, links));
  }
  show(view, parts);
}
