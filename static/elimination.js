// The elimination graphic (docs/pages.md): when a bust-out arrives on this page's channel
// (so never before the channel's delay releases it), the player's finishing place and prize
// are shown for a few seconds, then the graphic hides. Several bust-outs in one hand are shown
// one after the other, the first out (the lower place, R22) first. Eliminations already known
// at the first paint are history, never replayed; a snapshot after a reconnect shows only
// those this page has not shown yet. While the cards of a new all-in run out the graphic gives
// way to the "versus" graphic, which takes its region.
//   ?channel=delayed (default)  ?token=  ?seconds=8 (how long each one stays)
import { setText, toggle } from "./js/dom.js";
import { money, numberParam, ordinal, shownName, startGraphic, syncFlag, syncPhoto,
  tournamentOf } from "./js/tournament.js";

const $ = (id) => document.getElementById(id);

const query = new URLSearchParams(location.search);
const SECONDS = numberParam(query, "seconds", 8, 1, 600);
const GAP_MS = 700; // between two graphics: the exit finishes before the next one enters
// The bust-outs of one hand may come in consecutive patches: wait this long before the first
// one, so that they are shown in R22 order (the first out first).
const GATHER_MS = 400;

const state = { known: null, queue: [], showing: null, timer: null, context: null };

const keyOf = (entry) => `${entry.place}|${entry.name}`;
// A bust-out is the player's in his hand: a place that changes afterwards (a festival's
// hand-for-hand round ranked once every table reported, a disqualification above him) is the
// same bust-out, never news again.
const idOf = (entry) => `${entry.name}|${entry.hand}`;

function fill(entry, context) {
  const photo = entry.photo || context.photos.get(entry.name) || null;
  syncPhoto($("photo"), photo, entry.name || shownName(entry));
  syncFlag($("flag"), entry.country);
  setText($("name"), shownName(entry));
  setText($("place"), ordinal(entry.place));
  setText($("prize"), entry.prize ? money(entry.prize, context.currency) : "");
  const parts = [];
  if (typeof entry.hand === "number") parts.push(`Hand ${entry.hand}`);
  if (typeof context.remaining === "number" && context.remaining > 0) {
    parts.push(`${context.remaining} ${context.remaining === 1 ? "player" : "players"} left`);
  }
  setText($("detail"), parts.join(" · "));
}

function showNext() {
  state.timer = null;
  const bust = $("bust");
  const entry = state.queue.shift();
  if (!entry) {
    state.showing = null;
    bust.classList.remove("shown");
    document.documentElement.dataset.showing = "";
    return;
  }
  state.showing = entry;
  fill(entry, state.context);
  bust.classList.remove("shown");
  void bust.offsetWidth; // replay the entrance
  bust.classList.add("shown");
  document.documentElement.dataset.showing = keyOf(entry);
  state.timer = setTimeout(() => {
    bust.classList.remove("shown");
    state.timer = setTimeout(showNext, state.queue.length ? GAP_MS : 0);
  }, SECONDS * 1000);
}

/** The one render function: first paint and every update. */
export function render(view) {
  const tournament = tournamentOf(view);
  if (!tournament) return;
  // A new all-in takes this region for its "versus" graphic (overlay/graphics/layouts.py
  // TIME_SHARED): a bust-out still on screen gives way at once.
  toggle($("stage"), "giving-way", Boolean(tournament.allin));
  const eliminations = (Array.isArray(tournament.eliminations) ? tournament.eliminations : [])
    .filter((entry) => entry && typeof entry.place === "number");
  const players = Array.isArray(tournament.players) ? tournament.players : [];
  state.context = {
    currency: tournament.payouts ? tournament.payouts.currency : null,
    remaining: tournament.field ? tournament.field.remaining : null,
    photos: new Map(players.filter((p) => p && p.photo).map((p) => [p.name, p.photo])),
  };
  if (state.known === null) {
    // First paint: what happened before this page opened is not news.
    state.known = new Set(eliminations.map(idOf));
    return;
  }
  const fresh = eliminations.filter((entry) => !state.known.has(idOf(entry)))
    .sort((a, b) => b.place - a.place);
  for (const entry of fresh) state.known.add(idOf(entry));
  // A bust-out taken back (an operator's correction) is never shown, or stops showing.
  const present = new Map(eliminations.map((entry) => [idOf(entry), entry]));
  for (const key of [...state.known]) if (!present.has(key)) state.known.delete(key);
  state.queue = state.queue.filter((entry) => present.has(idOf(entry)))
    .map((entry) => present.get(idOf(entry)));
  state.queue.push(...fresh);
  state.queue.sort((a, b) => b.place - a.place);
  if (state.showing && !present.has(idOf(state.showing))) {
    clearTimeout(state.timer);
    showNext();
  } else if (state.showing) {
    state.showing = present.get(idOf(state.showing)); // its place as it stands now
    fill(state.showing, state.context);
    document.documentElement.dataset.showing = keyOf(state.showing);
  }
  else if (state.queue.length && state.timer === null) {
    state.timer = setTimeout(showNext, GATHER_MS);
  }
  toggle($("stage"), "has-news", state.showing !== null);
}

startGraphic("elimination", render);
