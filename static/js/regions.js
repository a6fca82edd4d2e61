// Where each graphic goes (docs/graphics.md, "Layouts"): every page's graphics sit in region
// wrappers, <div class="region" data-region="NAME"><div class="region-fit">graphic</div></div>.
// The layout on air gives each region a box on the stage; the graphic is scaled down to fit
// it (never up) and placed at the region's anchor, again whenever its own size changes (a
// ResizeObserver: a longer name, another player, a new view). The server names the layout in
// the page's theme link (data-regions) and sends each change with the look (js/graphics.js);
// ?layout= or ?safe= on the URL pins it (a rehearsal; the venue's TVs: ?layout=venue, an opaque
// full-screen picture whose regions also scale the graphics up, readable across the room).

const state = { regions: null, pinned: false, observer: null };
/** Regions narrower than this (stage pixels) are compact (data-compact="1"). */
export const COMPACT_BELOW = 560;

function orientation() {
  return document.documentElement.classList.contains("portrait") ? "portrait" : "landscape";
}

function place(wrapper) {
  const regions = state.regions && state.regions[orientation()];
  const region = regions ? regions[wrapper.dataset.region] : null;
  const fit = wrapper.firstElementChild;
  if (!region || !fit) return;
  wrapper.style.left = `${region.x}px`;
  wrapper.style.top = `${region.y}px`;
  wrapper.style.width = `${region.width}px`;
  wrapper.style.height = `${region.height}px`;
  wrapper.dataset.anchor = region.anchor;
  // A narrow region (a corner of the frame): the graphic may draw a compact form of itself
  // (the level clock: level, time and blinds), larger than its whole form scaled down.
  wrapper.dataset.compact = region.width < COMPACT_BELOW ? "1" : "";
  const width = fit.offsetWidth;
  const height = fit.offsetHeight;
  if (!width || !height) return;
  const scale = Math.min(region.grow ? Infinity : 1, region.width / width,
    region.height / height);
  const anchor = region.anchor || "top-left";
  const free = [region.width - width * scale, region.height - height * scale];
  const x = anchor.endsWith("left") ? 0 : anchor.endsWith("right") ? free[0] : free[0] / 2;
  const y = anchor.startsWith("bottom") ? free[1] : 0;
  fit.style.transform = `translate(${x}px, ${y}px) scale(${scale})`;
  wrapper.dataset.scale = String(Math.round(scale * 1000) / 1000);
}

/** Place every region of the page (after a resize that changed the stage's shape). */
export function placeRegions() {
  const root = document.documentElement;
  // A full-screen picture of its own (the venue's TVs): an opaque screen behind the graphics.
  root.classList.toggle("opaque", Boolean(state.regions && state.regions.opaque));
  // The layout's name, for the arrangements a page's CSS keys on it (the players' bar).
  root.dataset.layout = state.regions && typeof state.regions.name === "string"
    ? state.regions.name : "";
  for (const wrapper of document.querySelectorAll(".region[data-region]")) place(wrapper);
}

/** Use `regions` ({landscape: {name: {x, y, width, height, anchor}}, portrait: {...}}),
 * unless the page's URL pinned a layout. */
export function useRegions(regions) {
  if (state.pinned || !regions || typeof regions !== "object") return;
  state.regions = regions;
  placeRegions();
}

/** Read the page's regions from its theme link and keep every graphic in its region
 * (js/dom.js fitStage calls it, and placeRegions after each change of the stage's shape). */
export function startRegions() {
  const link = document.getElementById("feltcast-theme");
  try {
    state.regions = link && link.dataset.regions ? JSON.parse(link.dataset.regions) : null;
  } catch (error) {
    state.regions = null;
  }
  state.pinned = Boolean(link && link.dataset.layoutPinned === "1");
  if (typeof ResizeObserver === "function") {
    state.observer = new ResizeObserver((entries) => {
      for (const entry of entries) place(entry.target.parentElement);
    });
    for (const fit of document.querySelectorAll(".region > .region-fit")) {
      state.observer.observe(fit);
    }
  }
  placeRegions();
}
