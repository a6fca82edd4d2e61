// The look on air (docs/graphics.md): the theme's stylesheet, the logo and the sponsors.
//
// The server names the page's theme in <link id="feltcast-theme"> when it serves the page (so
// the first paint has it) and sends {"type": "theme"} on the page's channel socket whenever the
// producer changes the look in the console's Graphics panel; followTheme() applies it without
// a reload. A page opened with ?theme=NAME (rehearsal) keeps that theme and follows the logo
// and sponsors only.
//
// A new stylesheet replaces the old one only once it has loaded: a file that fails to load
// leaves the last good look on screen.
//
// Slots: any element with data-graphics="logo" shows the logo, data-graphics="sponsor" the
// sponsors in turn (one every sponsor_period seconds); each is hidden while it has nothing.

import { el } from "./dom.js";
import { useRegions } from "./regions.js";

const LINK_ID = "feltcast-theme";

function pinnedTheme() {
  return new URLSearchParams(location.search).get("theme");
}

/** Put the stylesheet at `href` in place of the current theme's, once it has loaded:
 * "same" (it is already), "swapped" or "failed" (the current one stays). */
function swapStylesheet(href) {
  const current = document.getElementById(LINK_ID);
  const target = new URL(href, location.href).href;
  if (current && current.href === target) return Promise.resolve("same");
  return new Promise((resolve) => {
    const link = el("link", { attrs: { rel: "stylesheet", href } });
    link.addEventListener("load", () => {
      if (current) current.remove();
      link.id = LINK_ID;
      resolve("swapped");
    });
    link.addEventListener("error", () => {
      link.remove();
      console.error(`theme stylesheet ${href} did not load: the last look stays`);
      resolve("failed");
    });
    document.head.append(link);
  });
}

function slotImage(slot) {
  let img = slot.querySelector("img");
  if (!img) {
    img = el("img", { attrs: { alt: "", decoding: "async" } });
    slot.append(img);
  }
  return img;
}

function showLogo(url) {
  for (const slot of document.querySelectorAll('[data-graphics="logo"]')) {
    slot.hidden = !url;
    if (url) {
      const img = slotImage(slot);
      if (img.getAttribute("src") !== url) img.setAttribute("src", url);
    }
  }
}

const rotation = { urls: [], index: 0, timer: null, period: 20 };

function showSponsor() {
  const url = rotation.urls.length ? rotation.urls[rotation.index % rotation.urls.length] : null;
  for (const slot of document.querySelectorAll('[data-graphics="sponsor"]')) {
    slot.hidden = !url;
    if (!url) continue;
    const img = slotImage(slot);
    if (img.getAttribute("src") !== url) {
      img.setAttribute("src", url);
      slot.classList.remove("sponsor-in");
      void slot.offsetWidth; // restart the entrance
      slot.classList.add("sponsor-in");
    }
    slot.dataset.sponsor = String(rotation.index % rotation.urls.length);
  }
}

function rotateSponsors(urls, period) {
  const same = urls.length === rotation.urls.length && urls.every((u, i) => u === rotation.urls[i]);
  if (same && period === rotation.period && rotation.timer !== null) return;
  rotation.urls = urls;
  rotation.period = period;
  if (!same) rotation.index = 0;
  clearInterval(rotation.timer);
  rotation.timer = urls.length > 1 ? setInterval(() => {
    rotation.index = (rotation.index + 1) % rotation.urls.length;
    showSponsor();
  }, Math.max(1, period) * 1000) : null;
  showSponsor();
}

/**
 * Apply every look `channel` announces. `onChange()` is called after a new stylesheet and its
 * fonts are in (pages re-fit their texts then). Looks are applied one at a time, in the
 * order they came (see below). Returns the function that applies a theme object (its promise
 * settles once every look asked for so far is on the page), for tests.
 */
export function followTheme(channel, { onChange = () => {} } = {}) {
  const pinned = pinnedTheme();
  // One look at a time, the newest last: a look that arrives while an earlier one's
  // stylesheet still loads waits for it (else the earlier one, finishing last, would put
  // its layout back on air); looks that were overtaken meanwhile are skipped.
  let pending = null;
  let draining = null;
  async function drain() {
    try {
      while (pending) {
        const theme = pending;
        pending = null;
        try {
          await applyNow(theme);
        } catch (error) {
          console.error("a look could not be applied; the last good one stays", error);
        }
      }
    } finally {
      draining = null;
    }
  }
  function apply(theme) {
    pending = theme;
    if (!draining) draining = drain();
    return draining;
  }
  async function applyNow(theme) {
    const root = document.documentElement;
    if (!pinned && typeof theme.css === "string") {
      const result = await swapStylesheet(theme.css);
      if (result !== "failed") root.dataset.theme = theme.name || "";
      if (result === "swapped") {
        if (document.fonts && document.fonts.ready) await document.fonts.ready;
        onChange();
      }
    }
    useRegions(theme.regions);
    showLogo(typeof theme.logo === "string" ? theme.logo : null);
    const sponsors = Array.isArray(theme.sponsors)
      ? theme.sponsors.filter((url) => typeof url === "string") : [];
    rotateSponsors(sponsors, Number(theme.sponsor_period) || 20);
    root.dataset.look = String(theme.look || "");
  }
  // The theme the server named when it served the page (or the ?theme= of a rehearsal).
  const link = document.getElementById(LINK_ID);
  document.documentElement.dataset.theme = pinned || (link && link.dataset.theme) || "";
  channel.onTheme((theme) => { apply(theme); });
  return apply;
}
