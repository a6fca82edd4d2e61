// The OBS overlay: one render(view) for first paint and every update (docs/view-model.md).
// ?channel= picks the channel (default "delayed"), ?token= is needed for "secure".
// The page computes nothing about poker; it only shows what its channel allows. When the server
// goes away it keeps the last graphics: nothing on screen says "disconnected".
import { connectChannel, pageParams } from "./js/channel.js";
import { syncCards } from "./js/cards.js";
import { followTheme } from "./js/graphics.js";
import { KeyedList, bigBlinds, chips, clockText, el, fitStage, fitTexts,
  loadFonts, nameForms, percent, setText, showOnAir, toggle } from "./js/dom.js";
import { actionClockFinal, actionClockRemaining, anteText, blindsText, flagElement, isBusted,
  levelClock, levelOf, localPath, photoElement, playerAt, seatName,
  syncFlag, syncPhoto, tournamentOf, wallNow } from "./js/tournament.js";

const STREET_LABELS = { preflop: "Pre-flop", flop: "Flop", turn: "Turn", river: "River",
  showdown: "Showdown", over: "" };
const ANTE_LABELS = { big_blind: "BB ante", button: "Button ante", per_player: "Ante" };

const $ = (id) => document.getElementById(id);

function createSeat() {
  const equityFill = el("div", { class: "equity-fill" });
  return el("article", { class: "player" },
    el("div", { class: "hole" }),
    el("div", { class: "who" },
      photoElement("photo player-photo"),
      el("div", { class: "who-text" },
        el("div", { class: "name-row" },
          flagElement("flag player-flag"),
          el("span", { class: "name" }),
          el("span", { class: "position" })),
        el("div", { class: "sub-row" },
          el("span", { class: "action" }),
          el("span", { class: "hand" })))),
    el("div", { class: "stack" },
      el("span", { class: "chips" }),
      el("span", { class: "bb" })),
    el("div", { class: "equity" }, el("span", { class: "equity-value" })),
    el("div", { class: "equity-bar" }, equityFill));
}

/** What an all-in player is all in for: his stack at the start of the hand (the tournament's
 * standing is of the hand's start), else his all-in in the hand's actions, else his bet this
 * street; null when none is known. */
function allInFor(view, seat) {
  const player = playerAt(view, seat.seat);
  if (player && player.stack > 0) return player.stack;
  const actions = Array.isArray(view.table.actions) ? view.table.actions : [];
  const shove = actions.filter((a) => a.seat === seat.seat && a.verb === "all_in"
    && typeof a.amount === "number").pop();
  if (shove) return shove.amount;
  return seat.bet > 0 ? seat.bet : null;
}

/** Broadcast convention: from this many players, only those still in the hand are shown
 * (each leaves as he folds), everyone between hands; ?all=1 always shows everyone. */
export const IN_HAND_FROM = 5;
/** From this many boxes on screen they are compact (smaller, hole cards still 7 % of the
 * frame's height), so a ten-handed table fits the stage. */
export const CROWDED_FROM = 10;

function shownSeats(view, seated) {
  const street = view.table.street;
  const running = street && street !== "over";
  if (params.all || !running || seated.length < IN_HAND_FROM) return seated;
  return seated.filter((seat) => !seat.folded);
}

/** Winners' best five cards, for highlighting at showdown. */
function highlightedCards(view) {
  const best = new Set();
  const street = view.table && view.table.street;
  if (street !== "showdown" && street !== "over") return best;
  for (const seat of view.seats || []) {
    if (seat.winner && Array.isArray(seat.best_five)) seat.best_five.forEach((c) => best.add(c));
  }
  return best;
}

function updateSeat(node, seat, best) {
  const q = (selector) => node.querySelector(selector);
  node.dataset.seat = String(seat.seat);
  toggle(node, "to-act", seat.to_act);
  toggle(node, "folded", seat.folded);
  toggle(node, "all-in", seat.all_in);
  toggle(node, "winner", seat.winner);
  toggle(node, "away", seat.sitting_out);

  // A folded hand is dead: its unknown backs are mucked from the graphics; known faces (secure
  // and delayed channels, R20) stay, dimmed.
  let cards = Array.isArray(seat.cards) ? seat.cards : [];
  if (seat.folded && cards.every((code) => code === null)) cards = [];
  toggle(node, "no-cards", cards.length === 0);
  const showdown = best.size > 0;
  syncCards(q(".hole"), cards, {
    classFor: (code) => (!showdown ? [] : best.has(code) ? ["best"] : ["muted"]),
  });

  // Photo and flag when the player's identity has them (set_player, the CSV import).
  const player = playerAt(shown.view, seat.seat);
  const name = seatName(shown.view, seat);
  const photo = player ? localPath(player.photo) : null;
  toggle(node, "has-photo", photo !== null);
  syncPhoto(q(".player-photo"), photo, name);
  syncFlag(q(".player-flag"), player ? player.country : null);
  q(".name").dataset.name = name;
  const position = q(".position");
  setText(position, seat.position);
  position.hidden = !seat.position;

  let action = seat.last_action;
  if (seat.winner && seat.won) action = `Wins ${chips(seat.won)}`;
  else if (seat.sitting_out && !action) action = "Away";
  const actionNode = q(".action");
  if (action && actionNode.textContent !== action && actionNode.animate) {
    // A new action pops in (the element is reused, so its CSS entrance would not replay).
    actionNode.animate([{ opacity: 0, transform: "scale(0.9)" }, { opacity: 1, transform: "none" }],
      { duration: 260, easing: "ease-out" });
  }
  setText(actionNode, action);
  actionNode.hidden = !action;
  actionNode.dataset.verb = (action || "").split(" ")[0].toLowerCase();
  const hand = q(".hand");
  const handName = seat.folded ? "" : seat.hand || "";
  hand.hidden = !handName;
  hand.dataset.hand = handName;

  // All in: the amount he is all in for stays, "ALL IN" under it. Out of the tournament
  // (his last chips lost at the end of the hand): "Eliminated", no "0 / 0.0 BB".
  const out = isBusted(seat, shown.view);
  toggle(node, "busted", out);
  if (out) {
    setText(actionNode, "Eliminated");
    actionNode.hidden = false;
    actionNode.dataset.verb = "eliminated";
  }
  const allIn = seat.all_in && seat.stack === 0;
  const stake = allIn ? allInFor(shown.view, seat) : null;
  setText(q(".chips"), out ? "" : !allIn ? chips(seat.stack) : stake ? chips(stake) : "ALL IN");
  setText(q(".bb"), out ? "" : allIn ? (stake ? "ALL IN" : "") : bigBlinds(seat.stack_bb));

  const equity = seat.equity && !seat.folded ? seat.equity.equity : null;
  toggle(node, "has-equity", equity !== null);
  setText(q(".equity-value"), percent(equity, 0));
  q(".equity-fill").style.width = equity === null ? "0%" : `${(equity * 100).toFixed(2)}%`;
}

function renderEventBar(view) {
  const table = view.table;
  setText($("table-name"), table.name);
  setText($("hand-number"), table.hand_number ? `Hand ${table.hand_number}` : "");
  const level = levelOf(view);
  setText($("level"), level ? `Level ${level.number}` : "");
  setText($("blinds"), level ? `${chips(level.small_blind)} / ${chips(level.big_blind)}` : "");
  const ante = level && level.ante
    ? `${ANTE_LABELS[level.ante_mode] || "Ante"} ${chips(level.ante)}` : "";
  setText($("ante"), ante);
  $("ante").hidden = !ante;
}

function renderTable(view, best) {
  const table = view.table;
  const board = Array.isArray(table.board) ? table.board : [];
  const showdown = best.size > 0;
  // The board appears with the flop: no empty slots before it.
  syncCards($("board"), board, {
    slots: board.length && table.street && table.street !== "over" ? 5 : board.length,
    classFor: (code) => (!showdown ? [] : best.has(code) ? ["best"] : ["muted"]),
  });
  setText($("street"), STREET_LABELS[table.street] || "");
  // A hand won before the flop has no board to show: no empty panel under the banner.
  toggle($("board").parentElement, "empty", board.length === 0 && !STREET_LABELS[table.street]);

  const pots = Array.isArray(table.pots) ? table.pots : [];
  const bets = (view.seats || []).reduce((sum, seat) => sum + (seat.bet || 0), 0);
  const total = pots.reduce((sum, pot) => sum + pot.amount, 0) + bets;
  setText($("pot-total"), chips(total));
  const side = $("side-pots");
  side.replaceChildren(...(pots.length > 1 ? pots : []).map((pot) => el("span",
    { class: "side-pot" }, el("span", { class: "label", text: pot.label }),
    el("span", { class: "amount", text: chips(pot.amount) }))));

  // Between hands (no street, nothing won) the board and pot panel fades out.
  const winners = (view.seats || []).filter((seat) => seat.winner);
  toggle($("table"), "idle", !table.street && winners.length === 0);
  const banner = $("winner");
  banner.hidden = winners.length === 0;
  if (winners.length) {
    const names = winners.map((seat) => seatName(view, seat)).join(" & ");
    const won = winners.reduce((sum, seat) => sum + (seat.won || 0), 0);
    setText($("winner-name"), `${names} ${winners.length > 1 ? "win" : "wins"} ${chips(won)}`);
    const hand = winners.find((seat) => seat.hand);
    setText($("winner-hand"), hand ? hand.hand : "");
  }
}

const players = new KeyedList($("players"), createSeat);
const shown = { view: null };

/**
 * The clock bug: the tournament clock's time left (counting down locally from its
 * remaining/as_of, standing still when paused), else the table level's end; and the R12
 * action clock (one minute, then the final ten seconds) on the player it was called on.
 */
function renderLevelClock() {
  const view = shown.view;
  const tournament = tournamentOf(view);
  // A clock the floor has not started yet is no news on air: the table level's end, if any.
  const level = view ? levelClock(view, channel) : null;
  const now = wallNow(channel);
  setText($("level-clock"), level === null ? "" : clockText(level.remaining));
  toggle($("level-clock"), "paused", Boolean(level && !level.running));

  const called = tournament ? tournament.action_clock : null;
  const left = actionClockRemaining(called, now);
  const box = $("action-clock");
  box.hidden = left === null;
  const seat = left === null ? null : (view.seats || []).find((s) => s.seat === called.seat);
  for (const node of $("players").children) {
    toggle(node, "on-clock", seat && node.dataset.seat === String(seat.seat));
  }
  if (left === null) return;
  setText($("action-clock-name"), seat ? seatName(view, seat) : `Seat ${called.seat}`);
  const final = actionClockFinal(called, now);
  setText($("action-clock-time"), final ? String(Math.ceil(left)) : clockText(left));
  toggle(box, "final", final);
}

/** Level, blinds and ante of the hand (R21: a new level starts with the next hand); a break
 * and the next level from the tournament clock. */
function renderClockBug(view) {
  const tournament = tournamentOf(view);
  const clock = tournament ? tournament.clock : null;
  const onBreak = Boolean(clock && clock.is_break && !view.table.street);
  if (onBreak) {
    setText($("level"), clock.name || "Break");
    setText($("blinds"), "");
    $("ante").hidden = true;
  }
  toggle($("level"), "break", onBreak);
  const next = clock && clock.next ? [blindsText(clock.next), anteText(clock.next)]
    .filter(Boolean).join(" · ") : "";
  setText($("next-level"), next ? `Next ${next}` : "");
}

/** The one render function: first paint and every update. */
export function render(view) {
  shown.view = view;
  showOnAir(view);
  const stage = $("stage");
  stage.classList.remove("empty");
  const best = highlightedCards(view);
  renderEventBar(view);
  renderClockBug(view);
  const seated = (view.seats || []).filter((seat) => seat.name !== null);
  stage.dataset.players = String(seated.length);
  // A channel that knows no equity (venue) gets narrower boxes, without an empty column.
  toggle(stage, "no-equity", !seated.some((seat) => seat.equity && !seat.folded));
  const inHand = shownSeats(view, seated);
  stage.dataset.shown = String(inHand.length);
  toggle(stage, "crowded", inHand.length > CROWDED_FROM - 1); // ten boxes: a compact column
  players.sync(inHand, (seat) => seat.seat, (node, seat) => updateSeat(node, seat, best));
  // Hand names are fitted, never cut: the name, then its first part, then smaller type.
  // So are names: the name, then shorter forms of it ("A. Griffin"), then smaller type.
  fitTexts([...$("players").querySelectorAll(".hand:not([hidden])")]
    .map((node) => [node, [node.dataset.hand, node.dataset.hand.split(",")[0]]])
    .concat([...$("players").querySelectorAll(".name")]
      .map((node) => [node, nameForms(node.dataset.name)])));
  renderTable(view, best);
  stage.dataset.street = view.table.street || "";
  stage.dataset.channel = view.channel ? view.channel.name : "";
  renderLevelClock();
}

// Texts are fitted by measuring them in their font: once the fonts are in, fit them again.
loadFonts().then(() => { if (channel.view) render(channel.view); });
fitStage();
const params = { ...pageParams({ channel: "delayed" }),
  all: new URLSearchParams(location.search).get("all") === "1" };
const channel = connectChannel({ channel: params.channel, page: "overlay", token: params.token });
channel.subscribe(render);
followTheme(channel, { onChange: () => { if (channel.view) render(channel.view); } });
setInterval(renderLevelClock, 250);
window.feltcast = { channel, render };
