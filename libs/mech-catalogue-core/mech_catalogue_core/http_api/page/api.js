// Copyright 2026 mech-catalogue contributors. Licensed under the Apache License, Version 2.0.
//
// The JSON API of the server that serves this page (the agent's, or `mech-catalogue
// serve`'s): paths relative to the page's folder, /catalogue/ -> /tools, /offers, ...

/** An answer of the API that is not 200: its error code and message. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** URL of an API path ("offers", "tools/<name>") with query parameters. */
export function apiUrl(path, parameters = {}) {
  const url = new URL(`../${path}`, document.baseURI);
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== undefined && value !== null && value !== "") url.searchParams.set(name, String(value));
  }
  return url;
}

/** GET a JSON body; a non-200 answer raises ApiError with the API's message. */
export async function getJson(path, parameters = {}) {
  const response = await fetch(apiUrl(path, parameters), { headers: { Accept: "application/json" } });
  let body = null;
  try {
    body = await response.json();
  } catch (error) {
    throw new ApiError(response.status, "not_json", `the server answered ${response.status} without JSON`);
  }
  if (!response.ok && !(path === "healthcheck" && body && body.status)) {
    const error = (body && body.error) || {};
    throw new ApiError(response.status, String(error.code || "http_error"), String(error.message || `HTTP ${response.status}`));
  }
  return body;
}

/** One path segment: a tool name or a mech key, percent-encoded (the API decodes it). */
export function segment(text) {
  return encodeURIComponent(text);
}
