// The tournament director's view (docs/festival.md): the festival as the director's service
// keeps it (GET /api/festival, asked again every second): every table with its seats and
// stacks and whether it is playing or waiting, hand-for-hand and its round (R24), the moves
// the rules made (balancing, breaks, the final table), the places decided and the prizes.
// The director's orders (a move, a break, hand-for-hand on or off; an order still waiting
// withdrawn with its button) are sent with the festival's token (from ?token= or typed,
// kept for this tab only); the answer, done or refused with the festival's reason, is
// shown under the controls.
import { el, setText } from "./js/dom.js";
import { chips, money, ordinal } from "./js/tournament.js";

const $ = (id) => document.getElementById(id);
const EVERY_MS = 1000;
const TOKEN_KEY = "feltcast.festival.token";
let handForHand = false;

function tableCard(table) {
  return el("li", { class: `table${table.playing ? "" : " waiting"}`, data: { table: table.name } },
    el("header", { class: "table-head" },
      el("span", { class: "name", text: table.name }),
      el("span", { class: "status", text: table.playing ? `hand ${table.hand_id}` : "between hands" })),
    el("ol", { class: "players" }, ...table.seats.map(([seat, player, stack]) =>
      el("li", { class: "player" },
        el("span", { class: "seat", text: String(seat) }),
        el("span", { class: "player-name", text: player }),
        el("span", { class: "stack", text: chips(stack) })))));
}

function render(state) {
  setText($("name"), state.name);
  const tables = state.tables.length;
  setText($("summary"), `${state.remaining} player${state.remaining === 1 ? "" : "s"} left · `
    + `${tables} table${tables === 1 ? "" : "s"} · ${chips(state.chips)} chips in play`);
  const h4h = $("hand-for-hand");
  h4h.hidden = !state.hand_for_hand;
  setText(h4h, state.hand_for_hand
    ? `Hand-for-hand (R24)${state.round ? `: round of hand ${state.round}` : ""}`
      + " — a table that has finished waits for the others" : "");
  $("tables").replaceChildren(...state.tables.map(tableCard));
  $("moves").replaceChildren(...state.moves.map((move) => el("li", { class: "row" },
    el("span", { class: "rank", text: move.reason }),
    el("span", { class: "player-name", text: move.player }),
    el("span", { class: "where",
      text: `${move.from_table} seat ${move.from_seat} → ${move.to_table} seat ${move.to_seat}` }),
    el("span", { class: "stack", text: move.after }))));
  $("places").replaceChildren(...state.finishes.map((finish) => el("li", { class: "row" },
    el("span", { class: "rank", text: ordinal(finish.place) }),
    el("span", { class: "player-name", text: finish.player }),
    el("span", { class: "where", text: finish.hand_id ? `hand ${finish.hand_id}` : "" }),
    el("span", { class: "stack", text: finish.prize ? money(finish.prize) : "" }))));
  document.documentElement.dataset.remaining = String(state.remaining);
  renderControls(state);
}

/** Options of a select, keeping the one chosen while it is still offered. */
function fill(select, options) {
  const chosen = select.value;
  select.replaceChildren(...options.map(([value, label]) =>
    el("option", { text: label, attrs: { value } })));
  if (options.some(([value]) => value === chosen)) select.value = chosen;
}

function renderControls(state) {
  const names = state.tables.map((table) => [table.name, table.name]);
  fill($("move-player"), state.tables.flatMap((table) => table.seats.map(([, player]) =>
    [player, `${player} (${table.name})`])));
  fill($("move-table"), names);
  fill($("break-table"), names);
  handForHand = state.hand_for_hand;
  setText($("hand-for-hand-toggle"), handForHand ? "Stop hand-for-hand" : "Start hand-for-hand");
  $("orders").replaceChildren(...state.orders.map((order) => el("li", { class: "row order" },
    el("span", { class: "rank", text: "waiting" }),
    el("span", { class: "player-name", text: order.order }),
    el("span", { class: "where", text: "after its table's hand" }),
    withdrawButton(order))));
  $("lapsed").replaceChildren(...state.lapsed.map((lapse) => el("li", { class: "row lapsed" },
    el("span", { class: "rank", text: "lapsed" }),
    el("span", { class: "player-name", text: lapse.order }),
    el("span", { class: "where", text: lapse.reason }))));
}

/** A waiting order's button that takes it back before its table has finished its hand. */
function withdrawButton(order) {
  const button = el("button", { class: "withdraw", text: "Withdraw",
    attrs: { type: "button", "aria-label": `Withdraw: ${order.order}` } });
  const body = order.break_table ? { table: order.break_table } : { player: order.player };
  button.addEventListener("click", () => send("withdraw", body, () =>
    `Withdrawn: ${order.order}. Nobody moves for it.`));
  return button;
}

function commandId() {
  return `director-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/** The order whose answer never came ({order, id}): sent again, it keeps its first id, so the
 * director's service answers what it did the first time rather than doing it twice. */
let unanswered = null;

/** Send one order; show what was done, or why not. */
async function send(kind, body, done) {
  const answer = $("answer");
  const token = $("token").value.trim();
  sessionStorage.setItem(TOKEN_KEY, token);
  const order = JSON.stringify([kind, body]);
  const id = unanswered && unanswered.order === order ? unanswered.id : commandId();
  unanswered = { order, id };
  let text;
  let ok = false;
  try {
    const response = await fetch(`/api/festival/${kind}`, {
      method: "POST", cache: "no-store",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify({ id, ...body }) });
    const reply = await response.json();
    unanswered = null;
    ok = response.ok;
    if (ok) {
      text = done(reply);
    } else {
      const error = reply.error || {};
      const rule = error.rule && !String(error.message).includes(error.rule) ? ` (${error.rule})` : "";
      text = `Refused: ${error.message || response.status}${rule}`;
    }
  } catch (error) {
    text = `The director's service did not answer (${error.message}): send it again.`;
  }
  setText(answer, text);
  answer.dataset.state = ok ? "done" : "refused";
  answer.hidden = false;
  if (ok) refreshNow();
}

function moved(reply) {
  if (reply.moves.length === 0) return "Ordered: the move is made once the table has finished its hand.";
  return `Done: ${reply.moves.map((m) =>
    `${m.player} ${m.from_table} seat ${m.from_seat} → ${m.to_table} seat ${m.to_seat}`).join("; ")}.`;
}

function startControls() {
  const params = new URLSearchParams(location.search);
  const given = params.get("token");
  if (given) {
    sessionStorage.setItem(TOKEN_KEY, given);
    history.replaceState(null, "", location.pathname);
  }
  $("token").value = sessionStorage.getItem(TOKEN_KEY) || "";
  $("move-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const seat = $("move-seat").value ? Number($("move-seat").value) : 0;
    send("move", { player: $("move-player").value, table: $("move-table").value, seat }, moved);
  });
  $("break-form").addEventListener("submit", (event) => {
    event.preventDefault();
    send("break", { table: $("break-table").value }, moved);
  });
  $("hand-for-hand-toggle").addEventListener("click", () => {
    const on = !handForHand;
    send("hand_for_hand", { on }, (reply) =>
      `Done: hand-for-hand ${reply.hand_for_hand ? "on" : "off"}.`);
  });
}

let timer = null;

function refreshNow() {
  clearTimeout(timer);
  refresh();
}

async function refresh() {
  const notice = $("notice");
  try {
    const response = await fetch("/api/festival", { cache: "no-store" });
    const state = await response.json();
    if (!response.ok) throw new Error(state.error ? state.error.message : response.status);
    render(state);
    notice.hidden = true;
    document.documentElement.dataset.connection = "live";
  } catch (error) {
    setText(notice, `The director's service cannot be read now (${error.message}); retrying.`);
    notice.hidden = false;
    document.documentElement.dataset.connection = "offline";
  }
  clearTimeout(timer);
  timer = setTimeout(refresh, EVERY_MS);
}

startControls();
refresh();
