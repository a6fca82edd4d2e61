// The commentators' equity screen: the delayed channel by default (?channel= to change it).
// One render(view) for first paint and every update (docs/view-model.md).
import { connectChannel, pageParams } from "./js/channel.js";
import { cardElement, syncCards } from "./js/cards.js";
import { KeyedList, bigBlinds, chips, clockText, el, levelRemaining, loadFonts, percent,
  setText, timeOfDay, toggle } from "./js/dom.js";

const STREETS = ["preflop", "flop", "turn", "river", "showdown"];
const STREET_LABELS = { preflop: "Pre-flop", flop: "Flop", turn: "Turn", river: "River",
  showdown: "Showdown", over: "Hand over" };
const ANTE_LABELS = { big_blind: "BB ante", button: "Button ante", per_player: "Ante" };
const CONNECTION_TEXT = { connecting: "Connecting…", live: "", resyncing: "Resyncing…",
  offline: "Server unreachable — showing the last known state" };

const $ = (id) => document.getElementById(id);

function createPlayer() {
  return el("article", { class: "player" },
    el("header", { class: "player-head" },
      el("span", { class: "seat-no" }),
      el("span", { class: "name" }),
      el("span", { class: "position" }),
      el("span", { class: "state" })),
    el("div", { class: "player-body" },
      el("div", { class: "hole" }),
      el("div", { class: "numbers" },
        el("div", { class: "equity" },
          el("span", { class: "equity-value" }),
          el("span", { class: "win-tie" })),
        el("div", { class: "equity-bar" }, el("div", { class: "equity-fill" })))),
    el("div", { class: "hand" }),
    el("div", { class: "outs" },
      el("span", { class: "outs-count" }),
      el("span", { class: "outs-cards" })),
    el("footer", { class: "player-foot" },
      el("span", { class: "stack" }),
      el("span", { class: "bb" }),
      el("span", { class: "bet" }),
      el("span", { class: "last-action" })));
}

function stateText(seat) {
  if (seat.winner) return seat.won ? `Wins ${chips(seat.won)}` : "Winner";
  if (seat.folded) return "Folded";
  if (seat.all_in) return "All-in";
  if (seat.sitting_out) return "Away";
  if (seat.to_act) return "To act";
  return "";
}

function updatePlayer(node, seat) {
  const q = (selector) => node.querySelector(selector);
  node.dataset.seat = String(seat.seat);
  for (const [name, on] of [["to-act", seat.to_act], ["folded", seat.folded],
    ["all-in", seat.all_in], ["winner", seat.winner], ["away", seat.sitting_out]]) {
    toggle(node, name, on);
  }
  setText(q(".seat-no"), `Seat ${seat.seat}`);
  setText(q(".name"), seat.name);
  setText(q(".position"), seat.position);
  q(".position").hidden = !seat.position;
  setText(q(".state"), stateText(seat));
  q(".state").hidden = !stateText(seat);

  syncCards(q(".hole"), Array.isArray(seat.cards) ? seat.cards : []);

  const equity = seat.equity;
  toggle(node, "has-equity", Boolean(equity));
  setText(q(".equity-value"), equity ? percent(equity.equity) : "");
  setText(q(".win-tie"), equity ? `win ${percent(equity.win)} · tie ${percent(equity.tie)}` : "");
  q(".equity-fill").style.width = equity ? `${(equity.equity * 100).toFixed(2)}%` : "0%";

  setText(q(".hand"), seat.hand);
  q(".hand").hidden = !seat.hand;

  const outs = seat.outs;
  const outsNode = q(".outs");
  outsNode.hidden = !outs;
  if (outs) {
    setText(q(".outs-count"), `${outs.count} ${outs.count === 1 ? "out" : "outs"}`);
    const codes = outs.cards.join(" ");
    const list = q(".outs-cards");
    if (list.dataset.codes !== codes) {
      list.dataset.codes = codes;
      list.replaceChildren(...outs.cards.map((code) => cardElement(code, "mini")));
    }
  }

  setText(q(".stack"), chips(seat.stack));
  setText(q(".bb"), bigBlinds(seat.stack_bb));
  setText(q(".bet"), seat.bet ? `bet ${chips(seat.bet)}` : "");
  setText(q(".last-action"), seat.last_action);
}

function renderHeader(view) {
  const table = view.table;
  setText($("table-name"), table.name);
  setText($("hand-number"), table.hand_number ? `Hand ${table.hand_number}` : "");
  setText($("street"), STREET_LABELS[table.street] || "Between hands");
  const level = table.level;
  setText($("level"), level ? `Level ${level.number}` : "");
  setText($("blinds"), level ? `${chips(level.small_blind)} / ${chips(level.big_blind)}` : "");
  setText($("ante"), level && level.ante
    ? `${ANTE_LABELS[level.ante_mode] || "Ante"} ${chips(level.ante)}` : "");
  const channel = view.channel || {};
  const delayed = Boolean(channel.delay);
  setText($("delay"), delayed ? `Delay ${Math.round(channel.delay)} s` : "Live");
  toggle($("delay"), "delayed", delayed);
  setText($("as-of"), timeOfDay(channel.as_of));
}

/** Pot odds for the player to act, from to_call and the pots of the view. */
function renderOdds(view, totalPot) {
  const toAct = (view.seats || []).find((seat) => seat.to_act);
  const toCall = view.table.to_call || 0;
  const odds = $("odds");
  odds.hidden = !toAct || toCall <= 0;
  if (odds.hidden) return;
  setText($("odds-name"), toAct.name);
  setText($("odds-call"), chips(toCall));
  setText($("odds-ratio"), `${(totalPot / toCall).toFixed(1)} : 1`);
  setText($("odds-needed"), percent(toCall / (totalPot + toCall)));
  setText($("odds-has"), toAct.equity ? percent(toAct.equity.equity) : "—");
}

function renderBoard(view) {
  const table = view.table;
  syncCards($("board"), Array.isArray(table.board) ? table.board : [], {
    slots: table.street && table.street !== "over" ? 5 : 0,
  });
  const pots = Array.isArray(table.pots) ? table.pots : [];
  const bets = (view.seats || []).reduce((sum, seat) => sum + (seat.bet || 0), 0);
  const total = pots.reduce((sum, pot) => sum + pot.amount, 0) + bets;
  setText($("pot-total"), chips(total));
  const names = new Map((view.seats || []).map((seat) => [seat.seat, seat.name]));
  $("pots").replaceChildren(...pots.map((pot) => el("li", { class: "pot" },
    el("span", { class: "pot-label", text: pot.label }),
    el("span", { class: "pot-amount", text: chips(pot.amount) }),
    el("span", { class: "pot-eligible muted",
      text: (pot.winners && pot.winners.length ? "won by " : "")
        + (pot.winners && pot.winners.length ? pot.winners : pot.eligible)
          .map((seat) => names.get(seat) || `Seat ${seat}`).join(", ") }))));
  renderOdds(view, total);
}

function renderHistory(view) {
  const actions = Array.isArray(view.table.actions) ? view.table.actions : [];
  const items = [];
  let street = null;
  for (const action of actions) {
    if (action.street !== street) {
      street = action.street;
      items.push(el("li", { class: "history-street", text: STREET_LABELS[street] || street }));
    }
    items.push(el("li", { class: `history-action verb-${action.verb}`, text: action.text }));
  }
  const list = $("history");
  list.replaceChildren(...items);
  list.scrollTop = list.scrollHeight;
  list.dataset.count = String(actions.length);
  list.dataset.streets = STREETS.filter((s) => actions.some((a) => a.street === s)).join(" ");
}

const players = new KeyedList($("players"), createPlayer);
const shown = { view: null };

function renderLevelClock() {
  const remaining = shown.view ? levelRemaining(shown.view, channel.viewNow()) : null;
  setText($("level-clock"), remaining === null ? "" : `${clockText(remaining)} left`);
}

/** The one render function: first paint and every update. */
export function render(view) {
  shown.view = view;
  renderLevelClock();
  renderHeader(view);
  renderBoard(view);
  renderHistory(view);
  const seated = (view.seats || []).filter((seat) => seat.name !== null);
  players.sync(seated, (seat) => seat.seat, updatePlayer);
}

function showConnection(status) {
  const node = $("connection");
  setText(node, CONNECTION_TEXT[status] || "");
  node.dataset.status = status;
}

loadFonts();
const params = pageParams({ channel: "delayed" });
const channel = connectChannel({ channel: params.channel, page: "commentary",
  token: params.token });
channel.subscribe(render);
setInterval(renderLevelClock, 1000);
channel.onStatus(showConnection);
window.feltcast = { channel, render };
