// Copyright 2026 mech-catalogue contributors. Licensed under the Apache License, Version 2.0.
//
// A tool's input schema (the MCP Tool's inputSchema, JSON Schema 2020-12) as a form, and
// the arguments it holds as JSON to copy. One field per property: a choice for an enum, a
// number field for an integer or a number, a checkbox (required) or a true/false choice
// (optional) for a boolean, a text field for a string, and a JSON text area for anything
// else (arrays, objects, unions). Every title, description, enum value and example is
// shown as text. Nothing is sent anywhere.

import { el, strangerText } from "./dom.js";

const UNSET = "";

function typeOf(schema) {
  if (Array.isArray(schema.enum)) return "enum";
  const type = schema.type;
  if (["integer", "number", "boolean", "string"].includes(type)) return type;
  return "json";
}

function enumLabel(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function fieldInput(name, schema, required) {
  const kind = typeOf(schema);
  const hasDefault = Object.prototype.hasOwnProperty.call(schema, "default");
  const base = { "data-argument": name, "data-kind": kind, id: `argument-${name}`, required: required && kind !== "boolean" };
  if (kind === "enum") {
    const options = required ? [] : [el("option", { value: UNSET, text: "(not given)" })];
    schema.enum.forEach((value, at) => {
      const selected = hasDefault && JSON.stringify(value) === JSON.stringify(schema.default);
      options.push(el("option", { value: String(at), text: enumLabel(value), selected }));
    });
    return el("select", base, options);
  }
  if (kind === "boolean" && required) {
    return el("input", { ...base, type: "checkbox", checked: hasDefault && schema.default === true });
  }
  if (kind === "boolean") {
    const current = hasDefault ? String(schema.default) : UNSET;
    return el(
      "select",
      base,
      ["", "true", "false"].map((value) => el("option", { value, text: value || "(not given)", selected: value === current })),
    );
  }
  if (kind === "integer" || kind === "number") {
    return el("input", {
      ...base,
      type: "number",
      step: kind === "integer" ? "1" : "any",
      min: typeof schema.minimum === "number" ? String(schema.minimum) : null,
      max: typeof schema.maximum === "number" ? String(schema.maximum) : null,
      value: hasDefault && typeof schema.default === "number" ? String(schema.default) : null,
    });
  }
  if (kind === "string") {
    return el("input", {
      ...base,
      type: "text",
      value: hasDefault && typeof schema.default === "string" ? schema.default : null,
    });
  }
  return el("textarea", { ...base, value: hasDefault ? JSON.stringify(schema.default) : null, placeholder: "JSON value" });
}

/** The value of one field: {given, value} or {error}. */
function readField(input, schema) {
  const kind = input.getAttribute("data-kind");
  if (kind === "enum") return input.value === UNSET ? { given: false } : { given: true, value: schema.enum[Number(input.value)] };
  if (kind === "boolean" && input.type === "checkbox") return { given: true, value: input.checked };
  if (kind === "boolean") return input.value === UNSET ? { given: false } : { given: true, value: input.value === "true" };
  const text = input.value;
  if (text.trim() === "") return { given: false };
  if (kind === "integer") {
    return /^-?[0-9]+$/.test(text.trim()) ? { given: true, value: Number(text) } : { error: "is not a whole number" };
  }
  if (kind === "number") {
    const value = Number(text);
    return Number.isFinite(value) ? { given: true, value } : { error: "is not a number" };
  }
  if (kind === "string") return { given: true, value: text };
  try {
    return { given: true, value: JSON.parse(text) };
  } catch (error) {
    return { error: "is not valid JSON" };
  }
}

function describe(name, schema, required) {
  const notes = [];
  if (typeof schema.title === "string" && schema.title !== name) notes.push(strangerText("span", { class: "title" }, schema.title));
  if (typeof schema.description === "string") notes.push(strangerText("span", { class: "muted description" }, schema.description));
  if (Array.isArray(schema.examples) && schema.examples.length) {
    notes.push(el("span", { class: "muted examples" }, "examples: ", strangerText("code", {}, schema.examples.map(enumLabel).join(", "))));
  }
  return el(
    "span",
    {},
    el("code", { class: "argument-name", text: name }),
    required ? el("span", { class: "required", title: "required", text: " *" }) : null,
    kindNote(schema),
    notes.length ? el("br") : null,
    notes.flatMap((note, at) => (at ? [el("br"), note] : [note])),
  );
}

function kindNote(schema) {
  const kind = typeOf(schema);
  const type = kind === "json" ? JSON.stringify(schema.type ?? "any JSON") : kind;
  return el("span", { class: "muted", text: ` (${type})` });
}

/**
 * Build the form and its JSON output for a schema.
 * Returns {form, output}: output is a <pre> whose text is the arguments as JSON.
 */
export function schemaForm(inputSchema) {
  const schema = inputSchema && typeof inputSchema === "object" ? inputSchema : {};
  const properties = schema.properties && typeof schema.properties === "object" ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const fields = [];
  const form = el("form", { class: "arguments", id: "arguments-form" });
  for (const [name, raw] of Object.entries(properties)) {
    const property = raw && typeof raw === "object" ? raw : {};
    const input = fieldInput(name, property, required.has(name));
    fields.push({ name, property, input });
    form.append(el("label", { class: "argument" }, describe(name, property, required.has(name)), input));
  }
  if (!fields.length) form.append(el("p", { class: "muted", text: "This tool takes no named arguments." }));
  const output = el("pre", { id: "arguments-json", class: "key" });
  const problems = el("p", { id: "arguments-problems", class: "error" });
  const update = () => {
    const value = {};
    const wrong = [];
    for (const { name, property, input } of fields) {
      const read = readField(input, property);
      if (read.error) wrong.push(`${name} ${read.error}`);
      else if (read.given) value[name] = read.value;
      else if (required.has(name)) wrong.push(`${name} is required`);
    }
    output.textContent = JSON.stringify(value, null, 2);
    problems.textContent = wrong.length ? `Not ready to call: ${wrong.join("; ")}.` : "";
  };
  form.addEventListener("input", update);
  form.addEventListener("change", update);
  form.addEventListener("submit", (event) => event.preventDefault());
  update();
  const copy = el("button", {
    type: "button",
    id: "copy-arguments",
    text: "Copy as JSON arguments",
    on: {
      click: () => {
        if (navigator.clipboard) navigator.clipboard.writeText(output.textContent).catch(() => {});
        const range = document.createRange();
        range.selectNodeContents(output);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
      },
    },
  });
  return { form, output: el("div", {}, problems, output, copy) };
}
