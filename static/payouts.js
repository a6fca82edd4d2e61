// The payouts graphic (docs/pages.md): every paid place with its prize and the pay jump to
// the place above; places already decided greyed with the player's name, the place the next
// player out finishes in highlighted, the places still in play marked. Above the money, the
// number of players to the bubble.
//   ?channel=delayed (default)  ?token=
import { KeyedList, el, setText, toggle } from "./js/dom.js";
import { money, ordinal, playersLeftText, startGraphic, tournamentOf } from "./js/tournament.js";

const $ = (id) => document.getElementById(id);

// Places that fit the stage: ten a column, two columns. Beyond them the summary still names
// the next place out and its prize.
const MAX_PLACES = 20;

function createPlace() {
  return el("li", { class: "place-row" },
    el("span", { class: "place" }),
    el("span", { class: "prize" }),
    el("span", { class: "jump" }),
    el("span", { class: "who" }));
}

function updatePlace(node, row, context) {
  const q = (selector) => node.querySelector(selector);
  const { place, prize, name } = row;
  node.dataset.place = String(place);
  const remaining = context.remaining;
  const decided = typeof name === "string" && name !== "";
  const state = decided ? "paid"
    : remaining === null ? "open"
      : place === remaining ? "next"
        : place < remaining ? "in-play" : "open";
  node.dataset.state = state;
  for (const name of ["paid", "next", "in-play"]) toggle(node, name, state === name);
  setText(q(".place"), ordinal(place));
  setText(q(".prize"), money(prize, context.currency));
  // The jump is what finishing one place higher adds (none for the winner).
  const above = context.prizes.get(place - 1);
  const jump = typeof above === "number" && typeof prize === "number" ? above - prize : null;
  setText(q(".jump"), jump && jump > 0 ? `+${money(jump, context.currency)}` : "");
  setText(q(".who"), decided ? name : state === "next" ? "Next out" : "");
}

const places = new KeyedList($("places"), createPlace);

/** The one render function: first paint and every update. */
export function render(view) {
  const tournament = tournamentOf(view);
  const payouts = tournament ? tournament.payouts : null;
  const stage = $("stage");
  const rows = payouts && Array.isArray(payouts.places)
    ? payouts.places.filter((row) => row && typeof row.place === "number")
      .sort((a, b) => a.place - b.place)
    : [];
  toggle(stage, "empty", rows.length === 0);
  if (rows.length === 0) return;
  const field = tournament.field || {};
  const remaining = typeof field.remaining === "number" ? field.remaining : null;
  const currency = payouts.currency || null;
  const context = { remaining, currency,
    prizes: new Map(rows.map((row) => [row.place, row.prize])) };
  setText($("event-name"), tournament.name || (view.table ? view.table.name : ""));
  setText($("pool"), money(payouts.prize_pool, currency));
  setText($("remaining"), playersLeftText(field));
  const paid = rows.length;
  let label = "Next out";
  let next = "";
  if (remaining !== null && remaining > paid) {
    // Above the money: how many must bust before the first prize.
    label = "Bubble";
    const away = remaining - paid;
    next = `${away} to the money`;
  } else if (remaining !== null && context.prizes.has(remaining)) {
    next = `${ordinal(remaining)} · ${money(context.prizes.get(remaining), currency)}`;
  }
  setText($("next-label"), label);
  setText($("next"), next);
  toggle(stage, "bubble", label === "Bubble");
  toggle(stage, "two-columns", rows.length > 10);
  places.sync(rows.slice(0, MAX_PLACES), (row) => row.place,
    (node, row) => updatePlace(node, row, context));
  stage.dataset.places = String(rows.length);
}

startGraphic("payouts", render);
