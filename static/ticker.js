// The on-air ticker (docs/pages.md): a crawl, right to left, of the operator's lines (the
// console's Graphics panel; they come with the look on air, on every channel alike), the last
// hands as this channel released them (the view's `tournament.ticker` line: so never before
// the delay) and the field (players left, average stack, prize pool).
//
// A pass crawls the whole list once; the hands and the field that change meanwhile join at the
// next pass, so no line jumps while it is read. The operator's lines follow at once: a new one
// joins the end of the pass now crawling, one taken back leaves it. With nothing to crawl the
// strip hides.
//   ?channel=delayed (default)  ?token=  ?speed=110 (stage pixels per second)  ?hands=5
import { el, setText, toggle } from "./js/dom.js";
import { bigBlindsText, chips, money, numberParam, playersLeftText, startGraphic,
  tournamentOf } from "./js/tournament.js";

const $ = (id) => document.getElementById(id);
const query = new URLSearchParams(location.search);
const SPEED = numberParam(query, "speed", 110, 30, 2000);
/** The most recent hands' lines kept in the crawl. */
const HANDS = numberParam(query, "hands", 5, 1, 20);

const state = { messages: [], hands: [], field: null, animation: null };

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

function itemNode(item) {
  const node = el("span", { class: `crawl-item ${item.kind}`, text: item.text });
  node.dataset.text = item.text;
  return node;
}

const separator = () => el("span", { class: "crawl-sep", attrs: { "aria-hidden": "true" } });

function fill(list) {
  const nodes = [];
  list.forEach((item, index) => {
    if (index) nodes.push(separator());
    nodes.push(itemNode(item));
  });
  $("track").replaceChildren(...nodes);
}

/** Crawl the track from `from` (px) until its end has left the window. */
function run(from) {
  const track = $("track");
  const to = -track.scrollWidth;
  if (!track.animate) return;
  state.animation = track.animate(
    [{ transform: `translateX(${from}px)` }, { transform: `translateX(${to}px)` }],
    { duration: (Math.max(0, from - to) / SPEED) * 1000, easing: "linear" });
  state.animation.onfinish = () => pass();
}

/** Start a pass with what there is now; hide when there is nothing. */
function pass() {
  if (state.animation) state.animation.cancel();
  state.animation = null;
  const list = items();
  toggle($("stage"), "empty", list.length === 0);
  fill(list);
  if (!list.length) return;
  run($("crawl").clientWidth);
  const root = document.documentElement;
  root.dataset.passes = String(Number(root.dataset.passes || 0) + 1);
}

/** The operator's lines in the pass now crawling: a line taken back leaves at once, a new one
 * joins its end; the crawl goes on from where it is (no restart, nothing read jumps). */
function followOperator() {
  const track = $("track");
  const wanted = new Set(state.messages);
  let touched = false;
  for (const node of [...track.querySelectorAll(".crawl-item.operator")]) {
    if (wanted.has(node.dataset.text)) continue;
    const sep = node.previousElementSibling || node.nextElementSibling;
    if (sep && sep.classList.contains("crawl-sep")) sep.remove();
    node.remove();
    touched = true;
  }
  // (what the pass crawls is the track itself)
  const present = new Set([...track.querySelectorAll(".crawl-item.operator")]
    .map((node) => node.dataset.text));
  for (const text of state.messages) {
    if (present.has(text)) continue;
    if (track.firstChild) track.append(separator());
    track.append(itemNode({ text, kind: "operator" }));
    touched = true;
  }
  if (!touched) return;
  const x = new DOMMatrix(getComputedStyle(track).transform).m41;
  state.animation.cancel();
  run(x);
}

/** Crawl what changed: at once when nothing crawls, the operator's lines in the pass now
 * crawling, the rest from the next pass. */
function changed() {
  if (!state.animation || !$("track").firstChild) pass();
  else followOperator();
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
