// Small DOM helpers shared by the pages. Data only ever reaches the DOM through textContent,
// attributes and createElement: never innerHTML.
import { placeRegions, startRegions } from "./regions.js";

/** el("div", {class: "a b", data: {seat: 3}, attrs: {...}, text: "..."}, ...children) */
export function el(tag, options = {}, ...children) {
  const node = document.createElement(tag);
  if (options.class) node.className = options.class;
  if (options.text !== undefined && options.text !== null) node.textContent = String(options.text);
  for (const [key, value] of Object.entries(options.data || {})) node.dataset[key] = String(value);
  for (const [key, value] of Object.entries(options.attrs || {})) node.setAttribute(key, value);
  for (const child of children) if (child) node.append(child);
  return node;
}

const SVG_NS = "http://www.w3.org/2000/svg";

export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  for (const child of children) if (child) node.append(child);
  return node;
}

/** Set textContent only when it changes (keeps transitions and selection stable). */
export function setText(node, text) {
  const value = text === null || text === undefined ? "" : String(text);
  if (node.textContent !== value) node.textContent = value;
}

export function toggle(node, className, on) {
  node.classList.toggle(className, Boolean(on));
}

/** Replace the children of `node` with `children` (DOM nodes). */
export function replaceChildren(node, children) {
  node.replaceChildren(...children.filter(Boolean));
}

const CHIPS = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** 7340000 → "7,340,000" */
export function chips(amount) {
  return amount === null || amount === undefined ? "" : CHIPS.format(amount);
}

const BIG_BLINDS = new Intl.NumberFormat("en-US", {
  minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** 91.84 → "91.8 BB"; big stacks lose the decimal and group like chips: "10,000 BB". */
export function bigBlinds(value) {
  if (value === null || value === undefined) return "";
  return `${Math.abs(value) >= 100 ? CHIPS.format(value) : BIG_BLINDS.format(value)} BB`;
}

/** 0.6153 → "61.5%"; null → "" (unknown is never shown as 0). */
export function percent(fraction, digits = 1) {
  if (fraction === null || fraction === undefined) return "";
  return `${(fraction * 100).toFixed(digits)}%`;
}

/** Seconds → "m:ss" (never negative). */
export function clockText(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  const minutes = Math.floor(whole / 60);
  return `${minutes}:${String(whole % 60).padStart(2, "0")}`;
}

/** Unix seconds → local "HH:MM:SS". */
export function timeOfDay(unixSeconds) {
  if (unixSeconds === null || unixSeconds === undefined) return "";
  return new Date(unixSeconds * 1000).toLocaleTimeString("en-GB", { hour12: false });
}

/** Keyed list reconciliation: one element per key, created once and updated in place. */
export class KeyedList {
  constructor(container, create) {
    this.container = container;
    this.create = create;
    this.nodes = new Map();
  }

  /** update(node, item) is called for every item; returns the nodes in order. */
  sync(items, keyOf, update) {
    const seen = new Set();
    let previous = null;
    for (const item of items) {
      const key = keyOf(item);
      seen.add(key);
      let node = this.nodes.get(key);
      if (!node) {
        node = this.create(item);
        this.nodes.set(key, node);
      }
      update(node, item);
      const expectedNext = previous ? previous.nextSibling : this.container.firstChild;
      if (expectedNext !== node) this.container.insertBefore(node, expectedNext);
      previous = node;
    }
    for (const [key, node] of this.nodes) {
      if (!seen.has(key)) {
        node.remove();
        this.nodes.delete(key);
      }
    }
  }
}

/**
 * Fetch every bundled font weight now, while the server is surely up: a weight first needed
 * during an outage could not be loaded and its text would fall back to another font.
 */
export function loadFonts(weights = [400, 600, 700, 800]) {
  if (!document.fonts || !document.fonts.load) return Promise.resolve();
  // The theme's family (its --font, first name), else the bundled Inter.
  const font = getComputedStyle(document.documentElement).getPropertyValue("--font");
  const family = (font.split(",")[0] || "").trim() || "Inter";
  return Promise.all(weights.map((weight) => document.fonts.load(`${weight} 16px ${family}`)))
    .catch(() => {});
}

/** The stage every on-air page draws on: landscape, and the vertical one of a portrait
 * browser source (phone-first platforms). */
export const STAGES = { landscape: { width: 1920, height: 1080 },
  portrait: { width: 1080, height: 1920 } };

/**
 * Scale the page's fixed stage to the browser source, whatever its size (1280x720, 1920x1080,
 * 3840x2160: the same picture, never cut), centred if the shape differs. A portrait source
 * (taller than wide) gets the 1080x1920 stage, which each page's CSS arranges on its own
 * (`html.portrait`). Returns the function that fits it again (called on every resize).
 */
export function fitStage(stage = document.getElementById("stage")) {
  const root = document.documentElement;
  function fit() {
    const width = window.innerWidth;
    const height = window.innerHeight;
    if (!stage || !width || !height) return;
    const portrait = height > width;
    const base = portrait ? STAGES.portrait : STAGES.landscape;
    root.classList.toggle("portrait", portrait);
    const scale = Math.min(width / base.width, height / base.height);
    const left = (width - base.width * scale) / 2;
    const top = (height - base.height * scale) / 2;
    stage.style.transform = `translate(${left}px, ${top}px) scale(${scale})`;
    root.dataset.stageScale = String(Math.round(scale * 10000) / 10000);
    placeRegions(); // the vertical stage has regions of its own
  }
  startRegions();
  fit();
  window.addEventListener("resize", fit);
  return fit;
}

/**
 * "Hide graphics" (docs/pages.md): an on-air page fades out while its view says the operator
 * took the graphics off air (`view.graphics.hidden`, on each channel after its own delay) and
 * back in when they return. Pages call it with every view (first paint and updates).
 */
export function showOnAir(view) {
  const hidden = Boolean(view && view.graphics && view.graphics.hidden);
  document.documentElement.classList.toggle("graphics-hidden", hidden);
}

/**
 * The forms of a name, longest first, by the rule the booth reads (docs/pages.md): the full
 * name, the first name as an initial ("L. Claire Moreau"), first initial and surname
 * ("L. Moreau"), the surname alone ("Moreau").
 */
export function nameForms(full) {
  const name = String(full || "").trim();
  const words = name.split(/\s+/).filter(Boolean);
  if (words.length < 2) return [name];
  const initial = `${words[0][0]}.`;
  const forms = [name, `${initial} ${words.slice(1).join(" ")}`,
    `${initial} ${words[words.length - 1]}`, words[words.length - 1]];
  return forms.filter((form, index) => forms.indexOf(form) === index);
}

/** True when `node`'s content is wider than its box (it would be cut or spill). */
export function isCut(node) {
  return node.scrollWidth > node.clientWidth;
}

let measuring = null;

/** The width of `text` in CSS px in `font` (a computed CSS font shorthand). */
export function textWidth(text, font) {
  measuring = measuring || document.createElement("canvas").getContext("2d");
  measuring.font = font;
  return measuring.measureText(text).width;
}

/**
 * Fit one-line boxes whose width does not depend on their text (a flex item with a basis, a
 * fixed-layout table cell): each shows the longest of its `forms` that fits, else the
 * shortest in smaller type (down to `minScale`, through the CSS variable --text-fit). The
 * first form is the box's tooltip. All boxes are measured in one layout pass (the text is
 * measured on a canvas in the box's own font), then written: `items` is [[node, forms]].
 */
export function fitTexts(items, { minScale = 0.6 } = {}) {
  for (const [node] of items) node.style.removeProperty("--text-fit");
  const boxes = items.map(([node, forms]) => {
    const style = getComputedStyle(node);
    const room = node.clientWidth - parseFloat(style.paddingLeft || "0")
      - parseFloat(style.paddingRight || "0") - 1;
    // Not style.font: with font-variant-numeric set that shorthand serialises to "".
    const font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    // A canvas does not space letters: the box's letter-spacing is added per character.
    const spacing = parseFloat(style.letterSpacing) || 0;
    return { node, forms, room, font, spacing };
  });
  for (const { node, forms, room, font, spacing } of boxes) {
    node.title = forms[0] || "";
    const measure = (text) => textWidth(text, font) + spacing * [...text].length;
    const fitting = forms.find((form) => measure(form) <= room);
    if (fitting !== undefined) {
      setText(node, fitting);
      continue;
    }
    const last = forms[forms.length - 1] || "";
    setText(node, last);
    const width = measure(last);
    const scale = Math.max(minScale, Math.floor((room / width) * 100) / 100);
    node.style.setProperty("--text-fit", scale.toFixed(2));
  }
}

/** fitTexts for one box. */
export function fitText(node, forms, options = {}) {
  fitTexts([[node, forms]], options);
}
