// Copyright 2026 mech-catalogue contributors. Licensed under the Apache License, Version 2.0.
//
// The page's router: views live in the URL's fragment, so every view has a link:
//   #/search?q=...&kind=...   the search (#/ and "" too)
//   #/tool/<name>[?cursor=c]  one tool (name percent-encoded)
//   #/mech/<key>              one mech (its catalogue entry key, percent-encoded)
// The status line says how fresh the served catalogue is (GET /healthcheck).

import { getJson } from "./api.js";
import { errorBox, noteCuts, show } from "./dom.js";
import { renderMech } from "./mech_view.js";
import { renderSearch, SEARCH_PARAMETERS } from "./search_view.js";
import { renderTool } from "./tool_view.js";

function decoded(text) {
  try {
    return decodeURIComponent(text);
  } catch (error) {
    return null;
  }
}

async function route() {
  const view = document.getElementById("view");
  const hash = window.location.hash.replace(/^#/, "") || "/";
  const [path, query = ""] = hash.split("?", 2);
  const parameters = new URLSearchParams(query);
  try {
    if (path.startsWith("/tool/")) {
      const name = decoded(path.slice("/tool/".length));
      if (name === null) throw new Error("the tool name in this link is not percent-encoded UTF-8");
      await renderTool(view, name, parameters.get("cursor") || "");
    } else if (path.startsWith("/mech/")) {
      const key = decoded(path.slice("/mech/".length));
      if (key === null) throw new Error("the mech key in this link is not percent-encoded UTF-8");
      await renderMech(view, key);
    } else {
      const search = {};
      for (const name of SEARCH_PARAMETERS) if (parameters.has(name)) search[name] = parameters.get(name);
      await renderSearch(view, search);
    }
  } catch (error) {
    show(view, errorBox(String(error.message || error)));
  }
  document.body.setAttribute("data-ready", hash);
}

async function status() {
  const line = document.getElementById("status");
  try {
    const health = await getJson("healthcheck");
    if (health.status === "no_catalogue") {
      line.textContent = "No catalogue agreed yet: the agents are still reading the registries. Reload in a moment.";
      return;
    }
    line.textContent = `${health.tools} tools from ${health.mechs} mechs · catalogue of block ${health.block_number} · ${health.status}`;
  } catch (error) {
    line.textContent = `Catalogue status unknown: ${error.message}`;
  }
}

let widthNoted = window.innerWidth;
function noteCutsAgain() {
  if (window.innerWidth === widthNoted) return;
  widthNoted = window.innerWidth;
  noteCuts(document.getElementById("view"));
}

window.addEventListener("hashchange", route);
window.addEventListener("resize", noteCutsAgain);
status();
route();
