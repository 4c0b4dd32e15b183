// Building elements and telling the player things: what every page uses, importing nothing.

export const main = document.getElementById("app");

/** Builds an element: el("p", { class: "x" }, "text", child) (or fills one already made). */
export function el(tag, attributes = {}, ...children) {
  const node = tag instanceof Node ? tag : document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(node.dataset, value);
    else if (name === "style") {
      // Through the CSS object model: the page's policy refuses style attributes.
      for (const declaration of value.split(";")) {
        const at = declaration.indexOf(":");
        if (at > 0) node.style.setProperty(declaration.slice(0, at).trim(), declaration.slice(at + 1).trim());
      }
    }
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

// Writes that happen only when the value changes: the browser restyles (and a screen reader
// may re-read) whatever is written, even the value it already had, and a game redraws on every
// letter any player types.
const written = new WeakMap();

/** Sets a node's text, when it differs: in its one text node when it has one (replacing the
 * node would make the browser lay it out afresh), emptied by removing it (`:empty` matches). */
export function setText(node, text) {
  if (node.textContent === text) return;
  const only = node.firstChild;
  if (text !== "" && only !== null && only === node.lastChild && only.nodeType === Node.TEXT_NODE) only.data = text;
  else node.textContent = text;
}

/** Sets an attribute, when it differs. */
export function setAttribute(node, name, value) {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

/** Sets a style property (a custom one too), when it differs from what was last set here. */
export function setStyle(node, property, value) {
  let properties = written.get(node);
  if (!properties) written.set(node, (properties = new Map()));
  if (properties.get(property) === value) return;
  properties.set(property, value);
  node.style.setProperty(property, value);
}

/** Rebuilds a node's children with `build()` only when `signature` (a string of what they show)
 * changed since the last time. */
export function rebuildIf(node, signature, build) {
  if (written.get(node)?.get("children") === signature) return;
  if (!written.has(node)) written.set(node, new Map());
  written.get(node).set("children", signature);
  node.replaceChildren(...build());
}

/** The server's words for a person as a sentence: "the game is finished" → "The game is finished." */
export function sentence(text) {
  const words = String(text ?? "").trim();
  if (!words) return words;
  // A first word that is a word gets its capital; a file's name ("broken.puz: …") keeps its own.
  const capital = /^[a-z]+(?=[\s,;:]|$)/.test(words) ? words[0].toUpperCase() + words.slice(1) : words;
  return capital + (/[.!?…]$/.test(words) ? "" : ".");
}

/** A short message at the bottom of the screen (also read out by screen readers). */
export function toast(message, kind = "info") {
  const box = document.getElementById("toast");
  box.textContent = message;
  box.className = `toast ${kind} shown`;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => box.classList.remove("shown"), kind === "error" ? 6000 : 3000);
}

/** A solving time as a clock shows it: 4:05, 1:02:03. */
export function clock(seconds) {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return (h ? `${h}:${String(m).padStart(2, "0")}` : `${m}`) + `:${String(s).padStart(2, "0")}`;
}

const sheets = new Map();

/** Loads one more of the app's style sheets (once); resolves when it applies, so what it
 * styles is never shown unstyled. */
export function stylesheet(name) {
  if (!sheets.has(name)) {
    sheets.set(name, new Promise((resolve) => {
      const link = el("link", { rel: "stylesheet", href: `/app/${name}` });
      link.addEventListener("load", resolve);
      link.addEventListener("error", resolve);
      document.head.append(link);
    }));
  }
  return sheets.get(name);
}
