// The on-air ticker (docs/pages.md): a crawl, right to left, of the operator's lines (the
// console's Graphics panel; they come with the look on air, on every channel alike), the last
// hands as this channel released them (the view's `tournament.ticker` line: so never before
// the delay) and the field (players left, average stack, prize pool).
//
// A pass crawls the whole list once; what changes meanwhile joins at the next pass, so no line
// jumps while it is read, except a line the operator took back: that leaves at once. With
// nothing to crawl the strip hides.
//   ?channel=delayed (default)  ?token=  ?speed=110 (stage pixels per second)  ?hands=5
import { el, setText, toggle } from "./js/dom.js";
import { bigBlindsText, chips, money, numberParam, playersLeftText, startGraphic,
  tournamentOf } from "./js/tournament.js";

const $ = (id) => document.getElementById(id);
const query = new URLSearchParams(location.search);
const SPEED = numberParam(query, "speed", 110, 30, 400);
/** The most recent hands' lines kept in the crawl. */
const HANDS = numberParam(query, "hands", 5, 1, 20);

const state = { messages: [], hands: [], field: null, label: "", crawling: [],
  animation: null };

/** The field line: "7 / 120 players left · Average 52,000 (43.3 BB) · Prize pool €100,000". */
function fieldLine(tournament) {
  const field = tournament.field || {};
  const parts = [];
  const left = playersLeftText(field);
  if (left) parts.push(`${left} players left`);
  if (typeof field.average === "number" && field.average > 0) {
    const bb = bigBlindsText(field.average_bb);
    parts.push(`Average ${chips(field.average)}${bb ? ` (${bb})` : ""}`);
  }
  const payouts = tournament.payouts;
  if (payouts && payouts.prize_pool) {
    parts.push(`Prize pool ${money(payouts.prize_pool, payouts.currency)}`);
  }
  return parts.join(" · ");
}

/** What the next pass crawls: [{text, kind}], the operator's lines first. */
function items() {
  return [
    ...state.messages.map((text) => ({ text, kind: "operator" })),
    ...state.hands.map((text) => ({ text, kind: "hand" })),
    ...(state.field ? [{ text: state.field, kind: "field" }] : []),
  ];
}

function fill(list) {
  const track = $("track");
  const nodes = [];
  list.forEach((item, index) => {
    if (index) nodes.push(el("span", { class: "crawl-sep", attrs: { "aria-hidden": "true" } }));
    nodes.push(el("span", { class: `crawl-item ${item.kind}`, text: item.text }));
  });
  track.replaceChildren(...nodes);
  track.dataset.items = String(list.length);
  state.crawling = list;
}

/** Start a pass with what there is now; hide when there is nothing. */
function pass() {
  if (state.animation) state.animation.cancel();
  state.animation = null;
  const list = items();
  toggle($("stage"), "empty", list.length === 0);
  fill(list);
  if (!list.length) return;
  const track = $("track");
  const from = $("crawl").clientWidth;
  const to = -track.scrollWidth;
  if (!track.animate || from <= 0) return;
  state.animation = track.animate(
    [{ transform: `translateX(${from}px)` }, { transform: `translateX(${to}px)` }],
    { duration: ((from - to) / SPEED) * 1000, easing: "linear" });
  state.animation.onfinish = () => pass();
  document.documentElement.dataset.passes = String(Number(document.documentElement.dataset.passes
    || 0) + 1);
}

/** Crawl the new list: at once when nothing crawls or a line being crawled was taken back,
 * else from the next pass. */
function changed() {
  const next = items();
  const texts = new Set(next.map((item) => item.text));
  const takenBack = state.crawling.some((item) => item.kind === "operator"
    && !texts.has(item.text));
  if (!state.animation || takenBack || !state.crawling.length) pass();
}

/** The one render function: first paint and every update. */
export function render(view) {
  const tournament = tournamentOf(view);
  const line = tournament && typeof tournament.ticker === "string" ? tournament.ticker : "";
  if (line && state.hands[state.hands.length - 1] !== line) {
    state.hands = [...state.hands.filter((text) => text !== line), line].slice(-HANDS);
  }
  state.field = tournament ? fieldLine(tournament) || null : null;
  setText($("label"), tournament && typeof tournament.name === "string" ? tournament.name : "");
  changed();
}

const { channel } = startGraphic("ticker", render);
channel.onTheme((theme) => {
  const messages = Array.isArray(theme.messages)
    ? theme.messages.filter((text) => typeof text === "string" && text.trim()) : [];
  if (messages.length === state.messages.length
    && messages.every((text, index) => text === state.messages[index])) return;
  state.messages = messages;
  changed();
});
window.feltcast.ticker = { items, state };
