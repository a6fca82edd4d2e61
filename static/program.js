// The composed program overlay (docs/graphics.md, "The program"): one OBS browser source with
// every on-air graphic: the overlay (event bar, players, board, pots, winner banner, logo and
// sponsor), the level clock, the ticker, the cued lower third, the all-in versus graphic and
// the elimination graphic. Each is its own page in a same-origin frame, drawing inside its
// region of the layout on air (so none overlaps another); all share this page's one channel
// client (js/channel.js), so the program is one socket, one hello, one look.
//   ?channel=delayed (default)  ?token=  ?theme=  ?layout=  ?safe= (passed to every graphic)
import { connectChannel, pageParams } from "./js/channel.js";
import { el, loadFonts } from "./js/dom.js";

// The bundled fonts, fetched while the server is surely up (the frames use the same ones).
loadFonts();

/** The graphics of the program, bottom to top, with their own settings. */
export const GRAPHICS = [
  ["overlay", {}],
  ["clock", {}],
  ["ticker", {}],
  ["lowerthird", { seat: "cue" }],
  ["versus", {}],
  ["elimination", {}],
];
// (never the token: the frames use this page's socket)
const PASSED = ["theme", "layout", "safe"];

const params = pageParams({ channel: "delayed" });
const channel = connectChannel({ channel: params.channel, page: "program",
  token: params.token });
// Set before the frames load: their channel clients look for it (js/channel.js).
window.feltcastProgram = { channel };
window.feltcast = { channel, params };

const query = new URLSearchParams(location.search);
const frames = GRAPHICS.map(([page, extra]) => {
  const url = new URLSearchParams();
  url.set("channel", params.channel);
  for (const key of PASSED) if (query.get(key) !== null) url.set(key, query.get(key));
  for (const [key, value] of Object.entries(extra)) url.set(key, value);
  return el("iframe", { attrs: { src: `/${page}?${url}`, title: page, "data-graphic": page,
    tabindex: "-1", "aria-hidden": "true" } });
});
document.getElementById("program").replaceChildren(...frames);
