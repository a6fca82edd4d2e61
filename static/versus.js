// The all-in "versus" graphic (docs/pages.md): while the cards run out of an all-in on this
// page's channel (the view's `tournament.allin`: every hand in the pot known to the channel,
// so on `delayed` never before the delay), one row per player in the pot: flag and name, his hand, his chance to win it (the view's equity) and the prize money at stake, from
// the ICM the service computes: what he holds if he wins, what if he loses (and "out" when
// losing puts him out). It hides when the hand is decided; the elimination graphic comes then.
//   ?channel=delayed (default)  ?token=
import { syncCards } from "./js/cards.js";
import { KeyedList, chips, el, fitTexts, nameForms, percent, setText, toggle } from "./js/dom.js";
import { flagElement, money, playerAt, seatName, startGraphic, syncFlag, tournamentOf }
  from "./js/tournament.js";

const $ = (id) => document.getElementById(id);

function createRow() {
  return el("div", { class: "versus-row" },
    el("div", { class: "versus-who" }, flagElement(), el("span", { class: "name" })),
    el("div", { class: "versus-hole" }),
    el("div", { class: "versus-win" }),
    el("div", { class: "versus-money" },
      el("span", { class: "versus-tag win" }, el("span", { class: "label", text: "If won" }),
        el("span", { class: "value" })),
      el("span", { class: "versus-tag lose" }, el("span", { class: "label",
        text: "If lost" }), el("span", { class: "value" }))));
}

/** The players in the all-in: in the hand, not folded, each with his index in `allin`. */
export function contenders(view, allin) {
  const seats = Array.isArray(view.seats) ? view.seats : [];
  const order = Array.isArray(allin.seats) ? allin.seats : [];
  return seats.filter((seat) => seat && seat.name && !seat.folded
    && Array.isArray(seat.cards) && seat.cards.length && order.includes(seat.seat))
    .map((seat) => ({ seat, index: order.indexOf(seat.seat) }));
}

/** His prize equity if he wins the pot and if he loses it, over the counted outcomes:
 * {win, lose, out} (out: losing puts him out), or null when the outcomes say nothing. */
export function atStake(allin, index, seatNumber) {
  const outcomes = Array.isArray(allin.outcomes) ? allin.outcomes : [];
  let win = null;
  let lose = null;
  let out = false;
  for (const outcome of outcomes) {
    const equity = Array.isArray(outcome.equity) ? outcome.equity[index] : null;
    if (typeof equity !== "number" || !Number.isFinite(equity)) continue;
    const winners = Array.isArray(outcome.winners) ? outcome.winners : [];
    if (winners.includes(seatNumber)) win = win === null ? equity : Math.max(win, equity);
    else {
      if (lose === null || equity < lose) {
        lose = equity;
        out = Array.isArray(outcome.busted) && outcome.busted.includes(seatNumber);
      }
    }
  }
  return win === null && lose === null ? null : { win, lose, out };
}

const rows = new KeyedList($("rows"), createRow);

/** The one render function: first paint and every update. */
export function render(view) {
  const tournament = tournamentOf(view);
  const allin = tournament ? tournament.allin : null;
  const list = allin && view.table && view.table.street !== "over"
    ? contenders(view, allin) : [];
  const on = list.length >= 2;
  toggle($("stage"), "empty", !on);
  document.documentElement.dataset.versus = on ? list.map((c) => c.seat.seat).join(",") : "";
  if (!on) return;
  const currency = tournament.payouts ? tournament.payouts.currency : null;
  const pots = Array.isArray(view.table.pots) ? view.table.pots : [];
  const pot = pots.reduce((sum, p) => sum + (p.amount || 0), 0);
  setText($("pot"), pot > 0 ? `Pot ${chips(pot)}` : "");
  const best = Math.max(...list.map((c) => (c.seat.equity ? c.seat.equity.equity : 0)));
  rows.sync(list, (c) => String(c.seat.seat), (node, { seat, index }) => {
    const q = (selector) => node.querySelector(selector);
    node.dataset.seat = String(seat.seat);
    syncFlag(q(".flag"), (playerAt(view, seat.seat) || {}).country);
    q(".name").dataset.name = seatName(view, seat);
    syncCards(q(".versus-hole"), seat.cards);
    const equity = seat.equity ? seat.equity.equity : null;
    setText(q(".versus-win"), typeof equity === "number" ? percent(equity, 0) : "");
    toggle(node, "leading", typeof equity === "number" && equity === best && list.length > 1);
    const stake = atStake(allin, index, seat.seat);
    const win = q(".versus-tag.win");
    const lose = q(".versus-tag.lose");
    win.hidden = !stake || stake.win === null;
    lose.hidden = !stake || stake.lose === null;
    if (stake && stake.win !== null) {
      setText(win.querySelector(".value"), money(stake.win, currency));
    }
    if (stake && stake.lose !== null) {
      setText(lose.querySelector(".label"), stake.out ? "Out with" : "If lost");
      setText(lose.querySelector(".value"), money(stake.lose, currency));
      toggle(lose, "out", stake.out);
    }
  });
  fitTexts([...$("rows").querySelectorAll(".name")].map((node) => [node,
    nameForms(node.dataset.name)]));
}

startGraphic("versus", render);
