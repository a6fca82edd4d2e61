// The tournament director's view (docs/festival.md): the festival as the director's service
// keeps it (GET /api/festival, asked again every second): every table with its seats and
// stacks and whether it is playing or waiting, hand-for-hand and its round (R24), the moves
// the rules made (balancing, breaks, the final table), the places decided and the prizes.
import { el, setText } from "./js/dom.js";
import { chips, money, ordinal } from "./js/tournament.js";

const $ = (id) => document.getElementById(id);
const EVERY_MS = 1000;

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
  setTimeout(refresh, EVERY_MS);
}

refresh();
