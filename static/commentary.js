// The commentators' equity screen: the delayed channel by default; the header's Channel list
// switches to any other channel the token opens (GET /api/channels).
// One render(view) for first paint and every update (docs/view-model.md), then one fitting
// pass so that the whole screen shows without scrolling and nothing is cut (docs/pages.md).
import { connectChannel, pageParams } from "./js/channel.js";
import { followTheme } from "./js/graphics.js";
import { cardElement, syncCards } from "./js/cards.js";
import { KeyedList, bigBlinds, chips, clockText, el, fitText, fitTexts, isCut,
  loadFonts, nameForms, percent, setText, timeOfDay, toggle } from "./js/dom.js";
import { flagElement, isBusted, levelClock, levelOf, money,
  ordinal, playerAt, seatName, shareText, syncFlag, tournamentOf }
  from "./js/tournament.js";

const STREETS = ["preflop", "flop", "turn", "river", "showdown"];
const STREET_LABELS = { preflop: "Pre-flop", flop: "Flop", turn: "Turn", river: "River",
  showdown: "Showdown", over: "Hand over" };
const ANTE_LABELS = { big_blind: "BB ante", button: "Button ante", per_player: "Ante" };
const CONNECTION_TEXT = { connecting: "Connecting…", live: "", resyncing: "Resyncing…",
  offline: "Server unreachable — showing the last known state" };
/** While offline after the server last answered: how soon to ask it again (ms). */
const RECHECK_MS = 2000;
/** Statistics over fewer hands than this are greyed: a sample too small to mean much. */
export const STATS_SAMPLE = 20;
/** The stacks of the decision list every other pair while at most this many are in. */
export const PAIRS_UP_TO = 4;
/** The most all-in outcomes listed (the rest are summed in one line). */
const MAX_OUTCOMES = 8;

const $ = (id) => document.getElementById(id);
const shown = { view: null };

// ---------------------------------------------------------------- names

function seatOf(view, seat) {
  return view ? (view.seats || []).find((s) => s.seat === seat) || null : null;
}

/** The player's full name (his identity's, else the table's), for the fitted name boxes. */
function fullName(seat) {
  const player = playerAt(shown.view, seat);
  if (player && player.name) return player.name;
  const found = seatOf(shown.view, seat);
  return found && found.name ? found.name : `Seat ${seat}`;
}

/** The name in running text (outcomes, pots): the graphics' one display name (seatName). */
function spokenName(seat) {
  return seatName(shown.view, seatOf(shown.view, seat) || { seat, name: null });
}

/** A one-line name box: the longest form of the player's name that fits (docs/pages.md). */
function nameBox(className, seat) {
  return el("span", { class: `${className} fit-name`, data: { fullName: fullName(seat) } });
}

function fitNames(root = document) {
  fitTexts([...root.querySelectorAll(".fit-name")]
    .filter((node) => node.offsetParent !== null) // shown
    .map((node) => [node, nameForms(node.dataset.fullName)]));
}

function currencyOf(tournament) {
  return tournament && tournament.payouts ? tournament.payouts.currency : null;
}

// ---------------------------------------------------------------- booth numbers

/** What one round of blinds and antes costs at this level (the M denominator), or null. */
export function roundCost(view) {
  const level = levelOf(view);
  if (!level || !level.big_blind) return null;
  const dealt = (view.seats || []).filter((s) => s.name !== null && !s.sitting_out
    && (s.stack > 0 || s.bet > 0 || (Array.isArray(s.cards) && s.cards.length))).length;
  const ante = level.ante || 0;
  const antes = level.ante_mode === "per_player" ? ante * Math.max(dealt, 1) : ante;
  return (level.small_blind || 0) + level.big_blind + antes;
}

/** M: the stack over one round of blinds and antes; "M 30.6" (null when unknown). */
export function mText(stack, cost) {
  if (typeof stack !== "number" || !cost) return "";
  const m = stack / cost;
  return `M ${m >= 100 ? Math.round(m).toLocaleString("en-US") : m.toFixed(1)}`;
}

function inHand(seat) {
  return seat.name !== null && !seat.folded && Array.isArray(seat.cards) && seat.cards.length > 0;
}

/** Effective stack of two players: the smaller of their stacks at the start of this round
 * (chips behind plus what each has bet this street). */
export function effectiveStack(a, b) {
  return Math.min((a.stack || 0) + (a.bet || 0), (b.stack || 0) + (b.bet || 0));
}

function potBeforeBets(view) {
  const pots = Array.isArray(view.table.pots) ? view.table.pots : [];
  return pots.reduce((sum, pot) => sum + pot.amount, 0);
}

/** The stacks of the decision; returns how many rows of other pairs it drew (for fitting). */
function renderBooth(view) {
  const seats = (view.seats || []).filter((s) => s.name !== null);
  const toAct = seats.find((s) => s.to_act);
  const street = view.table.street;
  const booth = $("booth");
  // Players who can still put chips in: an all-in player's stack is settled.
  const live = seats.filter((s) => inHand(s) && (s.stack > 0 || s.bet > 0));
  const opponents = toAct ? live.filter((s) => s !== toAct) : [];
  booth.hidden = !toAct || !opponents.length || !STREETS.slice(0, 4).includes(street);
  if (booth.hidden) return 0;
  const cost = roundCost(view);
  const level = levelOf(view);
  const bb = level ? level.big_blind : 0;
  const nameNode = $("booth-name");
  nameNode.dataset.fullName = fullName(toAct.seat);
  setText(nameNode, fullName(toAct.seat));
  const numbers = $("booth-numbers");
  numbers.replaceChildren(
    el("span", { class: "booth-stack", text: chips(toAct.stack),
      data: { stackSeat: toAct.seat, chips: toAct.stack } }),
    ` behind · ${bigBlinds(toAct.stack_bb)}${cost ? ` · ${mText(toAct.stack, cost)}` : ""}`);
  const pot = potBeforeBets(view);
  const spr = street !== "preflop" && pot > 0;
  $("booth-spr-head").hidden = !spr;
  const row = (a, b, who, data) => {
    const effective = effectiveStack(a, b);
    return el("tr", { class: data.pair ? "pair" : "", data },
      el("th", { attrs: { scope: "row" } }, ...who),
      el("td", { class: "booth-effective", text: chips(effective) }),
      el("td", { class: "booth-bb", text: bb ? bigBlinds(effective / bb) : "" }),
      spr ? el("td", { class: "booth-spr", text: (effective / pot).toFixed(1) }) : null);
  };
  // The player to act against each opponent, then every other live pair (two names).
  const rows = opponents.map((other) => row(toAct, other,
    [nameBox("booth-opponent", other.seat)], { seat: other.seat }));
  const others = [];
  // Other pairs matter once few are left in: with at most PAIRS_UP_TO players in the hand.
  if (live.length <= PAIRS_UP_TO) opponents.forEach((a, i) => opponents.slice(i + 1).forEach((b) => {
    others.push(row(a, b, [nameBox("booth-pair", a.seat), nameBox("booth-pair", b.seat)],
      { pair: `${a.seat}-${b.seat}` }));
  }));
  const head = others.length ? el("tr", { class: "pairs-head pair" },
    el("th", { attrs: { scope: "rowgroup", colspan: spr ? "4" : "3" }, text: "Other pairs" }))
    : null;
  $("booth-rows").replaceChildren(...rows, ...(head ? [head] : []), ...others);
  return others.length;
}

// ---------------------------------------------------------------- players

function createPlayer(seat) {
  return el("article", { class: "player" },
    el("header", { class: "player-head" },
      el("span", { class: "seat-no" }),
      flagElement("flag"),
      el("span", { class: "name fit-name" }),
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
      el("span", { class: "outs-odds" }),
      el("span", { class: "outs-cards" })),
    el("footer", { class: "player-foot" },
      el("span", { class: "stack", data: { stackSeat: seat.seat } }),
      el("span", { class: "bb" }),
      el("span", { class: "m" }),
      el("span", { class: "bet" }),
      el("span", { class: "last-action" })),
    el("div", { class: "tourney" },
      el("span", { class: "chip-share" }),
      el("span", { class: "prize-equity" })),
    el("div", { class: "stats" }),
    el("div", { class: "story" }));
}

function stateText(seat) {
  if (isBusted(seat, shown.view)) return "Busted";
  if (seat.winner) return seat.won ? `Wins ${chips(seat.won)}` : "Winner";
  if (seat.folded) return "Folded";
  if (seat.all_in) return "All-in";
  if (seat.sitting_out) return "Away";
  if (seat.to_act) return "To act";
  return "";
}

/** "9 outs" and "20.0% next card · 36.4% by the river" (on the turn: "on the river"). */
export function outsText(outs, street) {
  if (!outs) return ["", ""];
  const count = `${outs.count} ${outs.count === 1 ? "out" : "outs"}`;
  if (typeof outs.next_card !== "number") return [count, ""];
  const odds = street === "turn" ? `${percent(outs.next_card)} on the river`
    : `${percent(outs.next_card)} next card · ${percent(outs.by_river)} by the river`;
  return [count, odds];
}

function updatePlayer(node, seat) {
  const q = (selector) => node.querySelector(selector);
  const view = shown.view;
  node.dataset.seat = String(seat.seat);
  const out = isBusted(seat, view);
  for (const [name, on] of [["to-act", seat.to_act], ["folded", seat.folded],
    ["all-in", seat.all_in], ["winner", seat.winner], ["away", seat.sitting_out],
    ["busted", out]]) {
    toggle(node, name, on);
  }
  setText(q(".seat-no"), String(seat.seat));
  q(".seat-no").title = `Seat ${seat.seat}`;
  q(".name").dataset.fullName = fullName(seat.seat);
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
  q(".outs").hidden = !outs;
  if (outs) {
    const [count, odds] = outsText(outs, view.table.street);
    setText(q(".outs-count"), count);
    setText(q(".outs-odds"), odds);
    const codes = outs.cards.join(" ");
    const list = q(".outs-cards");
    if (list.dataset.codes !== codes) {
      list.dataset.codes = codes;
      list.replaceChildren(...outs.cards.map((code) => cardElement(code, "mini")));
    }
  }

  const stack = q(".stack");
  setText(stack, chips(seat.stack));
  stack.dataset.chips = String(seat.stack);
  setText(q(".bb"), out ? "" : bigBlinds(seat.stack_bb));
  setText(q(".m"), out ? "" : mText(seat.stack, roundCost(view)));
  setText(q(".bet"), seat.bet ? `bet ${chips(seat.bet)}` : "");
  setText(q(".last-action"), seat.last_action);
  updateTournamentLines(node, seat);
}

/** A player's share of every chip in play, from the stack the screen shows. */
function shareOf(stack, tournament) {
  const total = tournament && tournament.field ? tournament.field.total_chips : null;
  return typeof stack === "number" && total ? stack / total : null;
}

/** {text, small}: "VPIP 50% · PFR 25% of 4 hands", greyed (small) under STATS_SAMPLE hands;
 * 3-bet, AF and WTSD join from STATS_SAMPLE hands on (unknown ones are left out). */
export function statsLine(stats) {
  if (!stats || typeof stats !== "object" || typeof stats.hands !== "number"
    || stats.hands < 1) return { text: "", small: false };
  const small = stats.hands < STATS_SAMPLE;
  const parts = [];
  const keys = [["vpip", "VPIP"], ["pfr", "PFR"]];
  if (!small) keys.push(["three_bet", "3-bet"]);
  for (const [key, label] of keys) {
    if (typeof stats[key] === "number") parts.push(`${label} ${percent(stats[key], 0)}`);
  }
  if (!small && typeof stats.af === "number") parts.push(`AF ${stats.af.toFixed(1)}`);
  if (!small && typeof stats.wtsd === "number") parts.push(`WTSD ${percent(stats.wtsd, 0)}`);
  if (!parts.length) return { text: "", small };
  const sample = `of ${stats.hands} hand${stats.hands === 1 ? "" : "s"}`;
  return { text: `${parts.join(" · ")} ${sample}`, small };
}

/** The booth's story lines of one player, most telling first (engine/stories.py). */
export function storyLines(story) {
  if (!story || typeof story !== "object") return [];
  const lines = [];
  const knocked = Array.isArray(story.knocked_out) ? story.knocked_out : [];
  if (knocked.length) {
    const last = knocked[knocked.length - 1];
    lines.push(knocked.length === 1 ? `Knocked out ${last.name} (hand ${last.hand})`
      : `Knocked out ${knocked.length}, last ${last.name} (hand ${last.hand})`);
  }
  const doubled = Array.isArray(story.doubled) ? story.doubled : [];
  if (doubled.length) {
    const last = doubled[doubled.length - 1];
    lines.push(`Doubled through ${last.through} (hand ${last.hand})`);
  }
  if (story.lead_taken) {
    lines.push(story.lead_taken === 1 ? `Took the chip lead in hand ${story.lead_hand}`
      : `Took the chip lead ${story.lead_taken} times, last in hand ${story.lead_hand}`);
  }
  if (story.biggest_won) {
    lines.push(`Biggest pot won ${chips(story.biggest_won.chips)} (hand ${story.biggest_won.hand})`);
  }
  if (story.biggest_lost) {
    lines.push(`Biggest loss ${chips(story.biggest_lost.chips)} (hand ${story.biggest_lost.hand})`);
  }
  return lines;
}

function updateTournamentLines(node, seat) {
  const tournament = tournamentOf(shown.view);
  const player = playerAt(shown.view, seat.seat);
  syncFlag(node.querySelector(".flag"), player ? player.country : null);
  const icm = tournament && tournament.icm ? tournament.icm[String(seat.seat)] : undefined;
  const share = seat.stack > 0 ? shareOf(seat.stack, tournament) : null;
  setText(node.querySelector(".chip-share"), share === null ? "" : `Chips ${shareText(share)}`);
  setText(node.querySelector(".prize-equity"), typeof icm === "number"
    ? `ICM ${money(icm, currencyOf(tournament))}` : "");
  const stats = tournament && tournament.stats ? tournament.stats[String(seat.seat)] : null;
  const line = statsLine(stats);
  const statsNode = node.querySelector(".stats");
  setText(statsNode, line.text);
  toggle(statsNode, "small-sample", line.small);
  const story = tournament && tournament.stories ? tournament.stories[String(seat.seat)] : null;
  const storyNode = node.querySelector(".story");
  setText(storyNode, storyLines(story).join(" · "));
}

// ---------------------------------------------------------------- header, board, history

/** "Live", "30 s behind live", "15 min behind live", "1 h 5 min behind live". */
export function behindText(delay) {
  if (!delay) return "Live";
  const seconds = Math.round(delay);
  if (seconds < 120) return `${seconds} s behind live`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min behind live`;
  return `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ""} behind live`;
}

function renderHeader(view) {
  const table = view.table;
  setText($("table-name"), table.name);
  setText($("hand-number"), table.hand_number ? `Hand ${table.hand_number}` : "");
  setText($("street"), STREET_LABELS[table.street] || "Between hands");
  const level = levelOf(view);
  setText($("level"), level ? `Level ${level.number}` : "");
  setText($("blinds"), level ? `${chips(level.small_blind)} / ${chips(level.big_blind)}` : "");
  setText($("ante"), level && level.ante
    ? `${ANTE_LABELS[level.ante_mode] || "Ante"} ${chips(level.ante)}` : "");
  const info = view.channel || {};
  const delayed = Boolean(info.delay);
  setText($("delay"), behindText(info.delay));
  toggle($("delay"), "delayed", delayed);
  setText($("as-of"), timeOfDay(info.as_of));
  $("as-of").parentElement.hidden = typeof info.as_of !== "number";  // nothing released yet
}

/** Pot odds for the player to act, from to_call and the pots of the view. */
function renderOdds(view, totalPot) {
  const toAct = (view.seats || []).find((seat) => seat.to_act);
  const toCall = view.table.to_call || 0;
  const odds = $("odds");
  odds.hidden = !toAct || toCall <= 0;
  if (odds.hidden) return;
  setText($("odds-name"), spokenName(toAct.seat));
  setText($("odds-call"), chips(toCall));
  setText($("odds-ratio"), `${(totalPot / toCall).toFixed(1)} : 1`);
  setText($("odds-needed"), percent(toCall / (totalPot + toCall)));
  setText($("odds-has"), toAct.equity ? percent(toAct.equity.equity) : "—");
}

function totalPotOf(view) {
  const bets = (view.seats || []).reduce((sum, seat) => sum + (seat.bet || 0), 0);
  return potBeforeBets(view) + bets;
}

/** Chips still in the middle: none once the hand is over (the stacks hold what was won). */
function chipsInPlay(view) {
  return view.table.street === "over" ? 0 : totalPotOf(view);
}

function renderBoard(view) {
  const table = view.table;
  // The board appears with the flop: no empty slots before it.
  syncCards($("board"), Array.isArray(table.board) ? table.board : [], {
    slots: table.board && table.board.length && table.street !== "over" ? 5 : 0,
  });
  const pots = Array.isArray(table.pots) ? table.pots : [];
  const total = totalPotOf(view);
  setText($("pot-total"), chips(total));
  $("pots").replaceChildren(...pots.map((pot) => el("li", { class: "pot" },
    el("span", { class: "pot-label", text: pot.label }),
    el("span", { class: "pot-amount", text: chips(pot.amount) }),
    el("span", { class: "pot-eligible muted",
      text: (pot.winners && pot.winners.length ? "won by " : "")
        + (pot.winners && pot.winners.length ? pot.winners : pot.eligible)
          .map(spokenName).join(", ") }))));
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
  list.dataset.count = String(actions.length);
  list.dataset.streets = STREETS.filter((s) => actions.some((a) => a.street === s)).join(" ");
}

/** The action log keeps its newest lines: the oldest go into "N earlier actions". */
function trimHistory() {
  const list = $("history");
  const items = [...list.children];
  if (list.scrollHeight <= list.clientHeight + 1 || items.length <= 2) {
    list.dataset.shown = String(list.querySelectorAll(".history-action").length);
    return;
  }
  // Measured once: keep the newest lines that fit below the "earlier" note (one line).
  const top = list.getBoundingClientRect().top;
  const room = list.clientHeight;
  const bottom = items[items.length - 1].getBoundingClientRect().bottom - top;
  const line = items[items.length - 1].getBoundingClientRect().height * 1.3;
  let start = 0;
  while (start < items.length - 2
    && bottom - (items[start].getBoundingClientRect().top - top) + line > room) start += 1;
  const note = el("li", { class: "history-earlier" });
  let earlier = 0;
  const drop = (item) => {
    if (item.classList.contains("history-action")) earlier += 1;
    item.remove();
  };
  items.slice(0, start).forEach(drop);
  list.prepend(note);
  setText(note, `${earlier} earlier action${earlier === 1 ? "" : "s"}`);
  // Rounding: one more line out while it still does not fit.
  for (let item = note.nextElementSibling; item && list.children.length > 2
    && list.scrollHeight > list.clientHeight + 1; item = note.nextElementSibling) {
    drop(item);
    setText(note, `${earlier} earlier action${earlier === 1 ? "" : "s"}`);
  }
  list.dataset.shown = String(list.querySelectorAll(".history-action").length);
}

const players = new KeyedList($("players"), createPlayer);

// ---------------------------------------------------------------- what is at stake

/** What one place more is worth, and what outlasting one more player adds. */
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

/** What the ICM table's figures are: {caption, head, values} (docs/pages.md). */
export function icmBasis(view, tournament) {
  const allin = tournament.allin;
  if (allin && Array.isArray(allin.seats) && Array.isArray(allin.expected_equity)) {
    const values = {};
    allin.seats.forEach((seat, i) => { values[String(seat)] = allin.expected_equity[i]; });
    return { caption: "Stacks now · prize equity expected once this all-in is decided "
      + "(every outcome weighed)", head: "Expected after the pot", values };
  }
  const list = Array.isArray(tournament.players) ? tournament.players : [];
  const moved = list.some((p) => {
    const seat = seatOf(view, p.seat);
    return seat && seat.stack !== p.stack;
  }) || chipsInPlay(view) > 0;
  if (moved) {
    const number = view.table.hand_number;
    return { caption: `Stacks now · prize equity from the stacks at the start of `
      + `${number ? `hand ${number}` : "the hand"}`, head: "Prize equity at the start",
    values: tournament.icm };
  }
  return { caption: "Stacks and prize equity (ICM) now", head: "Prize equity",
    values: tournament.icm };
}

function renderStakes(view, tournament) {
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
  const leader = $("field-leader");
  if (typeof field.chip_leader === "number") {
    leader.dataset.fullName = fullName(field.chip_leader);
    setText(leader, fullName(field.chip_leader));
  } else {
    setText(leader, "");
  }
  setText($("field-pool"), payouts ? money(payouts.prize_pool, currency) : "—");
  setText($("pay-jump"), payJumpText(payouts, field));
  const icmShown = tournament.icm && typeof tournament.icm === "object";
  $("icm").hidden = !icmShown;
  $("icm-caption").hidden = !icmShown;
  $("icm-prizes").hidden = !icmShown;
  if (!icmShown) return;
  const basis = icmBasis(view, tournament);
  setText($("icm-caption"), basis.caption);
  setText($("icm-value-head"), basis.head);
  const list = Array.isArray(tournament.players) ? tournament.players : [];
  const remaining = payouts && typeof payouts.remaining === "number" ? payouts.remaining
    : typeof field.remaining === "number" ? field.remaining : list.length;
  const atStake = payouts ? payouts.places.filter((p) => p.place <= remaining)
    .reduce((sum, p) => sum + p.prize, 0) : 0;
  let total = 0;
  let stacks = 0;
  const rows = list.map((player) => {
    const value = basis.values ? basis.values[String(player.seat)] : undefined;
    if (typeof value === "number") total += value;
    // One stack per player on the whole screen: the one his seat card shows.
    const seat = seatOf(view, player.seat);
    const stack = seat && typeof seat.stack === "number" ? seat.stack : player.stack;
    stacks += stack || 0;
    const share = shareOf(stack, tournament);
    return el("tr", { data: { seat: player.seat } },
      el("th", { attrs: { scope: "row" } }, nameBox("icm-name", player.seat)),
      el("td", { class: "icm-stack", text: chips(stack),
        data: { stackSeat: player.seat, chips: stack } }),
      el("td", { class: "icm-share", text: share === null ? "" : shareText(share) }),
      el("td", { class: "icm-value", text: typeof value === "number"
        ? money(value, currency) : "—" }),
      el("td", { class: "icm-of-prizes", text: typeof value === "number" && atStake > 0
        ? shareText(value / atStake) : "" }));
  });
  $("icm-rows").replaceChildren(...rows);
  const pot = chipsInPlay(view);
  $("icm-pot-row").hidden = pot <= 0;
  setText($("icm-pot"), chips(pot));
  setText($("icm-pot-share"), pot > 0 ? shareText(shareOf(pot, tournament) ?? 0) : "");
  setText($("icm-chips"), chips(field.total_chips ?? stacks + pot));
  setText($("icm-total"), money(total, currency));
  setText($("icm-prizes"), atStake > 0 ? `prizes still to win ${money(atStake, currency)}` : "");
}

// ---------------------------------------------------------------- all-in

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

/** Draws the all-in section; returns a function that lists at most n outcomes (for fitting). */
function renderAllin(tournament) {
  const allin = tournament ? tournament.allin : null;
  const section = $("allin");
  section.hidden = !allin;
  document.documentElement.dataset.allin = allin ? "1" : "";
  if (!allin) return null;
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
      el("th", { attrs: { scope: "row" } }, nameBox("allin-name", seat)),
      el("td", { class: "chip-equity", text: percent(at("chip_equity", i)) }),
      el("td", { class: "equity-before", text: money(before, currency) }),
      el("td", { class: "equity-after", text: money(after, currency) }),
      el("td", { class: "equity-change", text: change === null ? ""
        : signedMoney(change, currency) }));
  }));
  const outcomes = (Array.isArray(allin.outcomes) ? allin.outcomes : [])
    .slice().sort((a, b) => b.probability - a.probability);
  const listOutcomes = (limit) => {
    const items = outcomes.slice(0, limit).map((outcome) => el("li", { class: "outcome" },
      el("span", { class: "outcome-probability", text: percent(outcome.probability) }),
      el("span", { class: "outcome-text", text: outcomeText(outcome, spokenName) }),
      el("span", { class: "outcome-equity", text: seats.map((seat, i) => {
        const value = Array.isArray(outcome.equity) ? outcome.equity[i] : null;
        return `${spokenName(seat)} ${money(value, currency)}`;
      }).join(" · ") })));
    const rest = outcomes.slice(limit);
    if (rest.length) {
      const chance = rest.reduce((sum, outcome) => sum + outcome.probability, 0);
      items.push(el("li", { class: "outcome more muted",
        text: `${rest.length} more outcome${rest.length === 1 ? "" : "s"} (${percent(chance)})` }));
    }
    $("allin-outcomes").replaceChildren(...items);
  };
  listOutcomes(MAX_OUTCOMES);
  setText($("allin-boards"), typeof allin.boards === "number"
    ? `Every remaining board counted: ${chips(allin.boards)}` : "");
  return { listOutcomes, count: Math.min(MAX_OUTCOMES, outcomes.length) };
}

function renderTicker(tournament) {
  const text = tournament && typeof tournament.ticker === "string" ? tournament.ticker : "";
  $("ticker").hidden = !text;
  setText($("ticker-text"), text);
}

function renderLevelClock() {
  const level = shown.view ? levelClock(shown.view, channel) : null;
  setText($("level-clock"), level === null || level.remaining === null ? ""
    : `${clockText(level.remaining)} left${level.running ? "" : " · paused"}`);
}

// ---------------------------------------------------------------- fitting the screen

function overflows(node) {
  return node.scrollHeight > node.clientHeight + 1 || node.scrollWidth > node.clientWidth + 1;
}

/** True when something under `root` is too small for its content (names aside: fitNames
 * fits them afterwards). */
function somethingCut(root) {
  for (const node of root.querySelectorAll("*")) {
    if (node.offsetParent === null || node.closest(".fit-name")) continue;
    if (node.clientWidth > 0 && node.scrollWidth > node.clientWidth + 1) return true;
  }
  return false;
}

/** Scale a panel's type (--fit) to the largest value from `min` to 1 at which `fits()`
 * (a binary search: five layouts at most); true if it fits. */
function scaleToFit(panel, fits, min = 0.6) {
  const set = (value) => panel.style.setProperty("--fit", value.toFixed(3));
  set(1);
  if (fits()) return true;
  set(min);
  if (!fits()) return false;
  let lo = min;
  let hi = 1;
  for (let step = 0; step < 4; step += 1) {
    const mid = (lo + hi) / 2;
    set(mid);
    if (fits()) lo = mid; else hi = mid;
  }
  set(lo);
  return true;
}

function playerGrid(count) {
  const grid = $("players");
  const cols = count <= 1 ? 1 : count <= 4 ? 2 : count <= 9 ? 3 : 4;
  grid.style.setProperty("--cols", String(cols));
  grid.style.setProperty("--rows", String(Math.max(1, Math.ceil(count / cols))));
}

let allinFit = null;
let boothPairs = 0;

let fitKey = null;

/**
 * After every render: the screen fits its viewport (docs/pages.md). The fitting search (a few
 * layouts per panel) runs when the layout's shape changes (a new hand or street, players
 * joining or leaving, an all-in, the window's size, the fonts) or when a panel no longer fits
 * at its current scale; otherwise one layout confirms the current scales.
 */
export function fitScreen({ force = false } = {}) {
  const view = shown.view;
  const tournament = tournamentOf(view);
  const key = [view.table.hand_number, view.table.street, (view.seats || []).filter(
    (s) => s.name !== null).length, Boolean(tournament && tournament.allin), innerWidth,
  innerHeight].join("|");
  const search = force || key !== fitKey;
  fitKey = key;
  const grid = $("players");
  const cardsFit = () => [...grid.children].every((card) => !overflows(card))
    && !somethingCut(grid);
  if (search || !cardsFit()) {
    for (const level of [0, 1, 2]) {
      toggle(grid, "compact-1", level === 1);
      toggle(grid, "compact-2", level === 2);
      if (scaleToFit(grid, cardsFit)) break;
    }
  }
  const left = $("left");
  const leftFits = () => !overflows(left) && !somethingCut(left);
  if ((search || !leftFits()) && !scaleToFit(left, leftFits)) {
    // Short of room: the pairs without the player to act go first (newest pair first), then
    // all-in outcomes (summed in the last line).
    const pairs = [...document.querySelectorAll("#booth-rows tr.pair")].reverse();
    for (const pair of pairs.slice(0, boothPairs)) {
      if (leftFits()) break;
      pair.remove();
    }
    const head = document.querySelector("#booth-rows tr.pairs-head");
    if (head && !document.querySelector("#booth-rows tr.pair:not(.pairs-head)")) head.remove();
    for (let n = allinFit ? allinFit.count - 1 : 0; n >= 1 && !leftFits(); n -= 1) {
      allinFit.listOutcomes(n);
    }
  }
  const right = $("right");
  const history = right.querySelector(".history");
  const rightFits = () => !overflows(right) && !somethingCut(right)
    && history.clientHeight >= 40;
  if (search || !rightFits()) scaleToFit(right, rightFits);
  trimHistory();
  fitNames();
  for (const node of document.querySelectorAll(".ticker-text, .table-name")) {
    if (isCut(node)) fitText(node, [node.textContent]);
  }
}

// ---------------------------------------------------------------- render

const renderListeners = new Set();

/** The one render function: first paint and every update. */
export function render(view) {
  shown.view = view;
  renderLevelClock();
  renderHeader(view);
  renderBoard(view);
  renderHistory(view);
  const seated = (view.seats || []).filter((seat) => seat.name !== null);
  playerGrid(seated.length);
  players.sync(seated, (seat) => seat.seat, updatePlayer);
  boothPairs = renderBooth(view);
  const tournament = tournamentOf(view);
  renderTicker(tournament);
  renderStakes(view, tournament);
  allinFit = renderAllin(tournament);
  fitScreen();
  for (const listener of renderListeners) listener(view);
}

/** Renders at most every RENDER_MS: a burst of events (a fast demo, an action and its
 * pot, stacks and equities) is drawn once, with its last view, instead of once per patch; a
 * render and its fitting take tens of milliseconds on a booth laptop. The first view and any
 * view after a quiet moment are drawn at once. */
const RENDER_MS = 100;
let pendingView = null;
let renderTimer = null;
let renderedAt = -Infinity;

function renderSoon(view) {
  pendingView = view;
  if (renderTimer !== null) return;
  const wait = renderedAt + RENDER_MS - performance.now();
  const draw = () => {
    renderTimer = null;
    const latest = pendingView;
    pendingView = null;
    renderedAt = performance.now();
    if (latest !== null) render(latest);
  };
  if (wait <= 0) draw();
  else renderTimer = setTimeout(draw, wait);
}

// ---------------------------------------------------------------- channels

const params = pageParams({ channel: "delayed" });
let channel = null;
let refusalAsked = null;

function authHeaders() {
  return params.token ? { Authorization: `Bearer ${params.token}` } : {};
}

/** The channels this page's token opens (GET /api/channels), or null when unreachable. */
async function channelList() {
  try {
    const response = await fetch("/api/channels", { headers: authHeaders() });
    if (!response.ok) return null;
    return (await response.json()).channels;
  } catch (error) {
    return null;
  }
}

async function fillChannelPicker() {
  const list = await channelList();
  const select = $("channel-select");
  const open = (list || []).filter((c) => c.opens && c.name !== "operator");
  if (!open.some((c) => c.name === channel.channel)) {
    open.push({ name: channel.channel, delay: null });
  }
  select.replaceChildren(...open.map((c) => el("option", { attrs: { value: c.name },
    text: typeof c.delay === "number" ? `${c.name} (${behindText(c.delay).toLowerCase()})`
      : c.name })));
  select.value = channel.channel;
}

function showConnection(status) {
  const node = $("connection");
  node.dataset.status = status;
  if (status !== "offline") {
    refusalAsked = null;
    setText(node, CONNECTION_TEXT[status] || "");
    return;
  }
  setText(node, CONNECTION_TEXT.offline);
  // The socket closed: the server is away, or it refuses this channel. Ask which, once.
  if (refusalAsked === channel) return;
  refusalAsked = channel;
  const asked = channel;
  channelList().then((list) => {
    if (asked !== channel || channel.status !== "offline") return;
    const entry = list ? list.find((c) => c.name === asked.channel) : null;
    if (!list) return; // unreachable indeed
    const reason = entry ? entry.refused : { message: `there is no channel '${asked.channel}'`
      + ` (channels: ${list.map((c) => c.name).join(", ")})` };
    setText(node, reason ? `Channel ${asked.channel} refused: ${reason.message}`
      : "Reconnecting…");
    node.dataset.status = reason ? "refused" : "offline";
    // The server answered, yet the socket is down: it may be going away (a restart, a stop).
    // Ask again while the channel stays offline, so a server that is gone is called so.
    if (!reason) {
      setTimeout(() => {
        if (asked !== channel || channel.status !== "offline") return;
        refusalAsked = null;
        showConnection("offline");
      }, RECHECK_MS);
    }
  });
}

/** Show channel `name` (the header's Channel list): the URL follows, so a reload keeps it. */
export function switchTo(name) {
  if (channel) channel.stop();
  pendingView = null;  // the old channel's last view is not drawn
  const url = new URL(location.href);
  url.searchParams.set("channel", name);
  history.replaceState(null, "", url);
  channel = connectChannel({ channel: name, page: "commentary", token: params.token });
  channel.subscribe(renderSoon);
  channel.onStatus(showConnection);
  followTheme(channel, { onChange: () => { if (shown.view) fitScreen({ force: true }); } });
  return channel;
}

loadFonts().then(() => { if (shown.view) fitScreen({ force: true }); });
switchTo(params.channel);
fillChannelPicker();
$("channel-select").addEventListener("change", (event) => {
  if (event.target.value !== channel.channel) switchTo(event.target.value);
});
window.addEventListener("resize", () => { if (shown.view) fitScreen({ force: true }); });
setInterval(renderLevelClock, 1000);
window.feltcast = {
  get channel() { return channel; },
  render, fitScreen, switchTo,
  /** Tests: call listener(view) after every render and fitting pass. */
  onRender(listener) { renderListeners.add(listener); },
};
