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

/** A short message at the bottom of the screen (also read out by screen readers). */
export function toast(message, kind = "info") {
  const box = document.getElementById("toast");
  box.textContent = message;
  box.className = `toast ${kind} shown`;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => box.classList.remove("shown"), kind === "error" ? 6000 : 3000);
}
