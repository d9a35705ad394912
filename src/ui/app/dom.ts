/** Small helpers to build DOM without a framework: `h("td", { class: "num" }, text)`. */
export type Child = Node | string | number | null | undefined | false | readonly Child[];
type Attrs = Record<string, unknown> | null | undefined;

function append(parent: Node, child: Child): void {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) for (const c of child as readonly Child[]) append(parent, c);
  else if (child instanceof Node) parent.appendChild(child);
  else parent.appendChild(document.createTextNode(String(child)));
}

function setAttrs(el: Element, attrs: Attrs): void {
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value as EventListener);
    else if (name === "value" && "value" in el) (el as HTMLInputElement).value = String(value);
    else if (name === "checked" && "checked" in el) (el as HTMLInputElement).checked = value === true;
    else el.setAttribute(name, value === true ? "" : String(value));
  }
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  for (const child of children) append(el, child);
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";

export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs?: Attrs, ...children: Child[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  for (const child of children) append(el, child);
  return el;
}

/** Replaces an element's children. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  for (const child of children) append(el, child);
}
