// Playing cards drawn with CSS and inline SVG (our own paths, no image assets).
// A known card shows its face; an unknown card (null) shows a back; nothing else ever shows a
// face: a code that is not a valid card renders as a back too.
import { el, svg } from "./dom.js";

const RANKS = { A: "A", K: "K", Q: "Q", J: "J", T: "10", 9: "9", 8: "8", 7: "7", 6: "6",
  5: "5", 4: "4", 3: "3", 2: "2" };
const RANK_NAMES = { A: "Ace", K: "King", Q: "Queen", J: "Jack", T: "Ten", 9: "Nine",
  8: "Eight", 7: "Seven", 6: "Six", 5: "Five", 4: "Four", 3: "Three", 2: "Two" };
const SUIT_NAMES = { s: "spades", h: "hearts", d: "diamonds", c: "clubs" };
const CARD_CODE = /^[2-9TJQKA][cdhs]$/;

// Suit shapes on a 100 x 100 grid.
const SUIT_PATHS = {
  h: ["M50 90C22 66 5 49 5 29 5 15 16 5 29 5c9 0 17 5 21 13C54 10 62 5 71 5c13 0 24 10 24 24 "
    + "0 20-17 37-45 61z"],
  d: ["M50 3 88 50 50 97 12 50z"],
  s: ["M50 4C38 22 8 38 8 61c0 13 10 22 22 22 8 0 14-3 18-9-2 10-7 17-16 22h36c-9-5-14-12-16-22 "
    + "4 6 10 9 18 9 12 0 22-9 22-22C92 38 62 22 50 4z"],
  c: ["M50 6a19 19 0 0 0-16 29A19 19 0 1 0 46 66c-2 12-6 20-15 28h38c-9-8-13-16-15-28a19 19 0 "
    + "1 0 12-31A19 19 0 0 0 50 6z"],
};

export function isCardCode(code) {
  return typeof code === "string" && CARD_CODE.test(code);
}

export function cardName(code) {
  return `${RANK_NAMES[code[0]]} of ${SUIT_NAMES[code[1]]}`;
}

export function suitIcon(suit, className = "pip") {
  return svg("svg", { class: className, viewBox: "0 0 100 100", "aria-hidden": "true" },
    ...SUIT_PATHS[suit].map((d) => svg("path", { d })));
}

/** A card element: face for a valid code, back for null/unknown. */
export function cardElement(code, extraClass = "") {
  if (!isCardCode(code)) {
    return el("div", {
      class: `card back ${extraClass}`.trim(),
      attrs: { "aria-label": "face-down card", role: "img" },
    }, el("span", { class: "back-inner" }));
  }
  return el("div", {
    class: `card face suit-${code[1]} ${extraClass}`.trim(),
    data: { card: code },
    attrs: { "aria-label": cardName(code), role: "img" },
  },
  el("span", { class: "rank", text: RANKS[code[0]] }),
  suitIcon(code[1], "pip small"),
  suitIcon(code[1], "pip big"));
}

/** An empty place where a card will be dealt (board slots). */
export function cardSlot(extraClass = "") {
  return el("div", { class: `card slot ${extraClass}`.trim(), attrs: { "aria-hidden": "true" } });
}

/**
 * Put `codes` into `container`, reusing card elements whose code did not change so that only new
 * cards animate in. `slots` pads with empty slots (the board has five places).
 */
export function syncCards(container, codes, { slots = 0, classFor = () => [] } = {}) {
  const wanted = [...codes];
  while (wanted.length < slots) wanted.push(undefined);
  const existing = [...container.children];
  wanted.forEach((code, index) => {
    const key = code === undefined ? "slot" : isCardCode(code) ? code : "back";
    let node = existing[index];
    if (!node || node.dataset.key !== key) {
      const fresh = code === undefined ? cardSlot() : cardElement(code, "dealt");
      fresh.dataset.key = key;
      if (node) node.replaceWith(fresh); else container.append(fresh);
      node = fresh;
    }
    const extra = code === undefined ? [] : classFor(code, index);
    for (const name of ["best", "muted"]) node.classList.toggle(name, extra.includes(name));
  });
  for (const node of existing.slice(wanted.length)) node.remove();
}
