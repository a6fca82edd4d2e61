// The commentators' equity screen: the delayed channel by default (?channel= to change it).
// One render(view) for first paint and every update (docs/view-model.md).
import { connectChannel, pageParams } from "./js/channel.js";
import { cardElement, syncCards } from "./js/cards.js";
import { KeyedList, bigBlinds, chips, clockText, el, levelRemaining, loadFonts, percent,
  setText, timeOfDay, toggle } from "./js/dom.js";
import { flagElement, levelRemaining as tournamentRemaining, money, ordinal, shareText,
  syncFlag, tournamentOf, wallNow } from "./js/tournament.js";

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
      flagElement("flag"),
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
      el("span", { class: "last-action" })),
    el("div", { class: "tourney" },
      el("span", { class: "chip-share" }),
      el("span", { class: "prize-equity" })),
    el("div", { class: "stats" }));
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

  updateTournamentLines(node, seat);
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

// ---------------------------------------------------------------- tournament (issue 10)

/** The tournament's player in `seat` (identity, stack, share, rank), or null. */
function tournamentPlayer(seat) {
  const tournament = tournamentOf(shown.view);
  return tournament && Array.isArray(tournament.players)
    ? tournament.players.find((p) => p.seat === seat) || null : null;
}

/** The name commentators read: the display name, else the table's name, else the seat. */
function nameOf(seat) {
  const player = tournamentPlayer(seat);
  if (player && (player.display_name || player.name)) return player.display_name || player.name;
  const found = shown.view && (shown.view.seats || []).find((s) => s.seat === seat);
  return found && found.name ? found.name : `Seat ${seat}`;
}

function currencyOf(tournament) {
  return tournament && tournament.payouts ? tournament.payouts.currency : null;
}

/** "24 hands · VPIP 25% · PFR 20% · 3-bet 5% · AF 2.5 · WTSD 30%" (unknowns left out). */
export function statsText(stats) {
  if (!stats || typeof stats !== "object") return "";
  const parts = [];
  if (typeof stats.hands === "number") parts.push(`${stats.hands} hand${stats.hands === 1
    ? "" : "s"}`);
  for (const [key, label] of [["vpip", "VPIP"], ["pfr", "PFR"], ["three_bet", "3-bet"]]) {
    if (typeof stats[key] === "number") parts.push(`${label} ${percent(stats[key], 0)}`);
  }
  if (typeof stats.af === "number") parts.push(`AF ${stats.af.toFixed(1)}`);
  if (typeof stats.wtsd === "number") parts.push(`WTSD ${percent(stats.wtsd, 0)}`);
  return parts.join(" · ");
}

function updateTournamentLines(node, seat) {
  const tournament = tournamentOf(shown.view);
  const player = tournamentPlayer(seat.seat);
  syncFlag(node.querySelector(".flag"), player ? player.country : null);
  const icm = tournament && tournament.icm ? tournament.icm[String(seat.seat)] : undefined;
  setText(node.querySelector(".chip-share"), player && typeof player.share === "number"
    ? `Chips ${shareText(player.share)}` : "");
  setText(node.querySelector(".prize-equity"), typeof icm === "number"
    ? `ICM ${money(icm, currencyOf(tournament))}` : "");
  const stats = tournament && tournament.stats ? tournament.stats[String(seat.seat)] : null;
  setText(node.querySelector(".stats"), statsText(stats));
}

/** What the next place out is worth, and what outlasting one more player adds. */
export function payJumpText(payouts, field) {
  if (!payouts || !Array.isArray(payouts.places)) return "";
  const left = typeof payouts.remaining === "number" ? payouts.remaining
    : field && typeof field.remaining === "number" ? field.remaining : null;
  if (left === null || left < 2) return "";
  const prize = (place) => {
    const found = payouts.places.find((p) => p.place === place);
    return found ? found.prize : 0;
  };
  const currency = payouts.currency;
  const paid = typeof payouts.paid === "number" ? payouts.paid : payouts.places.length;
  const out = prize(left);
  const up = prize(left - 1);
  const jump = up - out;
  const next = out > 0 ? `Next out finishes ${ordinal(left)}: ${money(out, currency)}`
    : `Next out finishes ${ordinal(left)}: no prize`;
  const climb = jump > 0 ? ` · ${ordinal(left - 1)} pays ${money(up, currency)}`
    + ` (+${money(jump, currency)})` : "";
  const bubble = left === paid + 1 ? " · the bubble"
    : left > paid + 1 ? ` · ${left - paid} more out before the money` : "";
  return `${next}${climb}${bubble}`;
}

function renderStakes(tournament) {
  const field = tournament ? tournament.field : null;
  const section = $("stakes");
  section.hidden = !field;
  if (!field) return;
  const currency = currencyOf(tournament);
  const payouts = tournament.payouts;
  setText($("stakes-title"), tournament.name ? `${tournament.name}: what is at stake`
    : "What is at stake");
  setText($("field-remaining"), typeof field.entrants === "number"
    ? `${field.remaining} of ${field.entrants}` : String(field.remaining ?? ""));
  setText($("field-average"), typeof field.average === "number"
    ? `${chips(field.average)}${typeof field.average_bb === "number"
      ? ` (${bigBlinds(field.average_bb)})` : ""}` : "");
  setText($("field-leader"), typeof field.chip_leader === "number"
    ? nameOf(field.chip_leader) : "");
  setText($("field-pool"), payouts ? money(payouts.prize_pool, currency) : "—");
  setText($("pay-jump"), payJumpText(payouts, field));
  const icm = tournament.icm && typeof tournament.icm === "object" ? tournament.icm : null;
  $("icm").hidden = !icm;
  if (!icm) return;
  const list = Array.isArray(tournament.players) ? tournament.players : [];
  const remaining = payouts && typeof payouts.remaining === "number" ? payouts.remaining
    : typeof field.remaining === "number" ? field.remaining : list.length;
  const atStake = payouts ? payouts.places.filter((p) => p.place <= remaining)
    .reduce((sum, p) => sum + p.prize, 0) : 0;
  let total = 0;
  let stacks = 0;
  const rows = list.map((player) => {
    const value = icm[String(player.seat)];
    if (typeof value === "number") total += value;
    stacks += player.stack || 0;
    return el("tr", { data: { seat: player.seat } },
      el("th", { class: "icm-name", text: nameOf(player.seat), attrs: { scope: "row" } }),
      el("td", { class: "icm-stack", text: chips(player.stack) }),
      el("td", { class: "icm-share", text: shareText(player.share) }),
      el("td", { class: "icm-value", text: typeof value === "number"
        ? money(value, currency) : "—" }),
      el("td", { class: "icm-of-prizes", text: typeof value === "number" && atStake > 0
        ? shareText(value / atStake) : "" }));
  });
  $("icm-rows").replaceChildren(...rows);
  setText($("icm-chips"), chips(stacks));
  setText($("icm-total"), money(total, currency));
  setText($("icm-prizes"), atStake > 0 ? `prizes still to win ${money(atStake, currency)}` : "");
}

function signedMoney(delta, currency) {
  const rounded = Math.round(delta);
  if (rounded === 0) return "±0";
  return `${rounded > 0 ? "+" : "−"}${money(Math.abs(rounded), currency)}`;
}

/** One outcome in words: "Ashton wins; Rast and Yuki bust, Lena doubles". */
export function outcomeText(outcome, name) {
  const list = (seats) => {
    const names = seats.map(name);
    return names.length <= 1 ? names.join("")
      : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
  };
  const parts = [];
  const winners = Array.isArray(outcome.winners) ? outcome.winners : [];
  const doubled = Array.isArray(outcome.doubled) ? outcome.doubled : [];
  const verb = (seats, one, many) => `${list(seats)} ${seats.length === 1 ? one : many}`;
  if (outcome.split) {
    parts.push(verb(winners, "takes it", "split"));
  } else {
    const up = winners.filter((seat) => doubled.includes(seat));
    const kept = winners.filter((seat) => !doubled.includes(seat));
    if (kept.length) parts.push(verb(kept, "wins", "win"));
    if (up.length) parts.push(verb(up, "doubles up", "double up"));
  }
  const busted = Array.isArray(outcome.busted) ? outcome.busted : [];
  if (busted.length) parts.push(verb(busted, "busts", "bust"));
  const others = doubled.filter((seat) => !winners.includes(seat));
  if (others.length) parts.push(verb(others, "doubles up", "double up"));
  return parts.join("; ");
}

const MAX_OUTCOMES = 8;

function renderAllin(tournament) {
  const allin = tournament ? tournament.allin : null;
  const section = $("allin");
  section.hidden = !allin;
  document.documentElement.dataset.allin = allin ? "1" : "";
  if (!allin) return;
  const currency = currencyOf(tournament);
  const seats = Array.isArray(allin.seats) ? allin.seats : [];
  const at = (key, index) => (Array.isArray(allin[key]) ? allin[key][index] : null);
  $("allin-players").replaceChildren(...seats.map((seat, i) => {
    const before = at("equity_before", i);
    const after = at("expected_equity", i);
    const change = typeof before === "number" && typeof after === "number" ? after - before
      : null;
    return el("tr", { class: change === null ? "" : change > 0.5 ? "gain" : change < -0.5
      ? "loss" : "", data: { seat } },
      el("th", { text: nameOf(seat), attrs: { scope: "row" } }),
      el("td", { class: "chip-equity", text: percent(at("chip_equity", i)) }),
      el("td", { class: "equity-before", text: money(before, currency) }),
      el("td", { class: "equity-after", text: money(after, currency) }),
      el("td", { class: "equity-change", text: change === null ? ""
        : signedMoney(change, currency) }));
  }));
  const outcomes = (Array.isArray(allin.outcomes) ? allin.outcomes : [])
    .slice().sort((a, b) => b.probability - a.probability);
  const shownOutcomes = outcomes.slice(0, MAX_OUTCOMES);
  const items = shownOutcomes.map((outcome) => el("li", { class: "outcome" },
    el("span", { class: "outcome-probability", text: percent(outcome.probability) }),
    el("span", { class: "outcome-text", text: outcomeText(outcome, nameOf) }),
    el("span", { class: "outcome-equity", text: seats.map((seat, i) => {
      const value = Array.isArray(outcome.equity) ? outcome.equity[i] : null;
      return `${nameOf(seat)} ${money(value, currency)}`;
    }).join(" · ") })));
  const rest = outcomes.slice(MAX_OUTCOMES);
  if (rest.length) {
    const chance = rest.reduce((sum, outcome) => sum + outcome.probability, 0);
    items.push(el("li", { class: "outcome more muted",
      text: `${rest.length} more outcome${rest.length === 1 ? "" : "s"} (${percent(chance)})` }));
  }
  $("allin-outcomes").replaceChildren(...items);
  setText($("allin-boards"), typeof allin.boards === "number"
    ? `Every remaining board counted: ${chips(allin.boards)}` : "");
}

function renderTicker(tournament) {
  const text = tournament && typeof tournament.ticker === "string" ? tournament.ticker : "";
  $("ticker").hidden = !text;
  setText($("ticker-text"), text);
}

function renderLevelClock() {
  const tournament = tournamentOf(shown.view);
  const clock = tournament ? tournament.clock : null;
  if (clock && clock.started) {
    // The tournament clock (R21), counted on the server's time (docs/view-model.md).
    const left = tournamentRemaining(clock, wallNow(channel));
    setText($("level-clock"), left === null ? "" : clock.running ? `${clockText(left)} left`
      : `${clockText(left)} left · paused`);
    return;
  }
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
  const tournament = tournamentOf(view);
  renderTicker(tournament);
  renderStakes(tournament);
  renderAllin(tournament);
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
