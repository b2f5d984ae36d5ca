// Copyright 2026 mech-catalogue contributors. Licensed under the Apache License, Version 2.0.
//
// The only way the page builds elements. Every text becomes a text node (textContent),
// every attribute is set with setAttribute from a name written in this code; nothing is
// ever parsed as HTML. Links go only to the page's own views (#/...): a URL from a
// manifest or a mech never becomes a link.

/** Whether an attribute name may be set: never an event handler, never a URL but href. */
function allowedAttribute(name) {
  return /^[a-z][a-z-]*$/.test(name) && !name.startsWith("on") && !["src", "srcdoc", "action", "formaction", "style"].includes(name);
}

/** An href of the page's own views only ("#/..."); anything else becomes "#/". */
export function safeHref(value) {
  const text = String(value);
  return text.startsWith("#/") ? text : "#/";
}

// The character references the API writes for markup in manifest text (the library's
// model/markup.py): a text node never renders markup, so a person reads "[" and "<"
// rather than "&#91;" and "&lt;". One pass, so "&amp;#91;" shows as "&#91;".
const MARKUP_REFERENCES = { "&lt;": "<", "&amp;": "&", "&#91;": "[", "&#96;": "`", "&#126;": "~", "&#124;": "|", "&#45;": "-" };

/** A text as a text node shows it: the API's markup references back as characters. */
export function shownText(value) {
  return String(value).replace(/&(?:lt|amp|#91|#96|#126|#124|#45);/g, (reference) => MARKUP_REFERENCES[reference]);
}

/**
 * Build an element.
 * props: {text, href, on: {event: handler}, ...attributes}; children: nodes or strings
 * (strings become text nodes), arrays are flattened, null/undefined/false skipped.
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "text") node.textContent = shownText(value);
    else if (name === "on") for (const [event, handler] of Object.entries(value)) node.addEventListener(event, handler);
    else if (name === "href") node.setAttribute("href", safeHref(value));
    else if (name === "value") node.value = String(value);
    else if (name === "checked" || name === "selected") node[name] = Boolean(value);
    else if (allowedAttribute(name)) node.setAttribute(name, value === true ? "" : String(value));
    else throw new Error(`attribute ${name} is not set by this page`);
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(shownText(child)));
  }
  return node;
}

// A stranger's text (a manifest's or a mech's, or the API's message quoting one) is shown
// after the page's own facts and bounded in height (catalogue.css: .stranger), so no
// text, however many lines, long words or right-to-left letters it holds, pushes a
// price or a mech out of sight or reorders the words around it.

// two blank lines or more (lines of white space only), as one blank line
const BLANK_RUN = /\n(?:[^\S\n]*\n){2,}/g;
const BLANK_EDGES = /^(?:[^\S\n]*\n)+|(?:\n[^\S\n]*)+$/g;

/** A stranger's text with runs of blank lines as one, none before or after. */
export function collapsedText(value) {
  return String(value).replace(BLANK_RUN, "\n\n").replace(BLANK_EDGES, "");
}

function lineCount(text) {
  return text ? text.split("\n").length : 0;
}

/**
 * An element holding a stranger's text, collapsed (see collapsedText) and bounded: how
 * many blank lines were left out is kept in data-blank-lines-left-out, and show() says
 * any cut below it with a button that shows the whole text.
 */
export function strangerText(tag, props, value) {
  const text = collapsedText(value); // el() turns the API's references back to characters
  const leftOut = lineCount(String(value)) - lineCount(text);
  const classes = ["text", "stranger", props.class].filter(Boolean).join(" ");
  return el(tag, { ...props, class: classes, text, "data-blank-lines-left-out": leftOut || null });
}

/** Lines of a stranger's text its bound hides, 0 when it fits (reads the layout). */
function hiddenLines(box) {
  const style = getComputedStyle(box);
  const lineHeight = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.2;
  return Math.ceil((box.scrollHeight - box.clientHeight) / lineHeight);
}

/** The note under a stranger's text: what was cut or left out, and the expander. */
function cutNote(box, hidden) {
  const leftOut = Number(box.getAttribute("data-blank-lines-left-out") || 0);
  const cut = hidden > 0;
  if (!cut && !leftOut) return null;
  const said = [];
  if (cut) said.push(`cut here: about ${hidden} more line(s) of this text`);
  if (leftOut) said.push(`${leftOut} blank line(s) left out`);
  const note = el("span", { class: "cut muted" }, `(${said.join("; ")})`);
  if (cut) {
    const button = el("button", { type: "button", class: "expander", "aria-expanded": "false", text: "show all" });
    button.addEventListener("click", () => {
      const expanded = box.classList.toggle("expanded");
      button.setAttribute("aria-expanded", String(expanded));
      button.textContent = expanded ? "show less" : "show all";
    });
    note.append(" ", button);
  }
  return note;
}

/**
 * Say, under each stranger's text in a rendered node, its cut (it needs the layout, so
 * the page says it again when the window's width changes); an expanded text keeps its
 * note and button. All notes go, then every box is measured, then the notes come: one
 * layout for the view, not one per text.
 */
export function noteCuts(parent) {
  const boxes = [...parent.querySelectorAll(".stranger:not(.expanded)")];
  for (const box of boxes) {
    const said = box.nextElementSibling;
    if (said && said.classList.contains("cut")) said.remove();
  }
  const hidden = boxes.map(hiddenLines);
  boxes.forEach((box, at) => {
    const note = cutNote(box, hidden[at]);
    if (note) box.after(note);
  });
}

/** Replace a node's children; a stranger's text among them gets its cut said. */
export function show(parent, ...children) {
  parent.replaceChildren();
  for (const child of children.flat(Infinity)) {
    if (child !== undefined && child !== null && child !== false) parent.append(child);
  }
  noteCuts(parent);
}

/**
 * A table: headings and rows of cells (a cell is a node, a string, or {text, class}).
 * Each cell carries its heading in `data-heading`: in a narrow window (catalogue.css)
 * a row is shown as a card of heading-value lines, so no table is wider than the window.
 */
export function table(headings, rows, attributes = {}) {
  const cell = (value, at) => {
    const heading = { "data-heading": headings[at] ?? "" };
    if (value instanceof Node) return el("td", heading, value);
    if (value !== null && typeof value === "object") return el("td", { ...heading, class: value.class, text: value.text });
    return el("td", { ...heading, text: value ?? "" });
  };
  return el(
    "table",
    attributes,
    el("thead", {}, el("tr", {}, headings.map((heading) => el("th", { scope: "col", text: heading })))),
    el("tbody", {}, rows.map((row) => el("tr", {}, row.map(cell)))),
  );
}

/** An error message as text. */
export function errorBox(message) {
  return el("p", { class: "error", role: "alert", text: message });
}
