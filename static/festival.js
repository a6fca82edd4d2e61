// A festival worker's front page (docs/festival.md): every published table's state (hand,
// level, blinds, board, players and stacks) and the field's chip counts across the tables,
// each table read from its own public `venue` channel (/t/<table>/ws/venue) with the one
// channel client. The tables are asked of /api/tables, again every few seconds, so a table
// that starts publishing appears. When the worker relays the director's standings, the
// festival's places and prizes follow, live as the venue channel (js/standings.js). One
// render() for the first paint and every update.
import { Channel } from "./js/channel.js";
import { KeyedList, el, setText, toggle } from "./js/dom.js";
import { followStandings, keyed, standingsRelayed } from "./js/standings.js";
import { blindsText, chips, levelOf, money, ordinal } from "./js/tournament.js";

const $ = (id) => document.getElementById(id);
const TABLES_EVERY_MS = 5000;

/** table key -> {channel, view, status} */
const tables = new Map();

function createTable() {
  return el("li", { class: "table" },
    el("header", { class: "table-head" },
      el("a", { class: "name" }),
      el("span", { class: "status" })),
    el("p", { class: "hand" }),
    el("p", { class: "board" }),
    el("ol", { class: "players" }));
}

function boardText(table) {
  const board = table && Array.isArray(table.board) ? table.board.filter(Boolean) : [];
  return board.length ? board.join(" ") : "";
}

/** The players still in at a table: a name and chips (behind, or in front while all in);
 * a player who busted in the hand just over is shown no more. */
function seatedPlayers(view) {
  return (view && Array.isArray(view.seats) ? view.seats : [])
    .filter((seat) => seat && seat.name
      && ((seat.stack || 0) > 0 || seat.all_in || (seat.bet || 0) > 0));
}

function updateTable(node, key, entry) {
  const view = entry.view;
  const table = view ? view.table || {} : {};
  const link = node.querySelector(".name");
  link.setAttribute("href", `/t/${encodeURIComponent(key)}/overlay?channel=delayed`);
  setText(link, table.name || key);
  setText(node.querySelector(".status"), entry.status === "live" ? "live" : entry.status);
  toggle(node, "offline", entry.status !== "live");
  const level = levelOf(view);
  const parts = [];
  if (typeof table.hand_number === "number" && table.hand_number > 0) {
    parts.push(`Hand ${table.hand_number}`);
  }
  if (level) parts.push(`Level ${level.number}`, blindsText(level));
  const seated = seatedPlayers(view);
  const empty = view !== null && seated.length === 0;
  toggle(node, "empty", empty);
  setText(node.querySelector(".hand"),
    empty ? "No players here now: the table was broken" : parts.join(" · "));
  setText(node.querySelector(".board"), empty ? "" : boardText(table));
  const players = node.querySelector(".players");
  const rows = seated.map((seat) => el("li", { class: "player",
    data: { seat: seat.seat } },
  el("span", { class: "seat", text: String(seat.seat) }),
  el("span", { class: "player-name", text: seat.name }),
  el("span", { class: "stack", text: chips(seat.stack) })));
  players.replaceChildren(...rows);
}

const tableList = new KeyedList($("tables"), createTable);

function render() {
  const keys = [...tables.keys()].sort();
  tableList.sync(keys.map((key) => [key, tables.get(key)]), ([key]) => key,
    (node, [key, entry]) => updateTable(node, key, entry));
  const field = [];
  for (const key of keys) {
    const entry = tables.get(key);
    const name = entry.view && entry.view.table ? entry.view.table.name || key : key;
    for (const seat of seatedPlayers(entry.view)) {
      field.push({ name: seat.name, stack: seat.stack || 0, table: name });
    }
  }
  field.sort((a, b) => b.stack - a.stack || a.name.localeCompare(b.name));
  $("field").replaceChildren(...field.map((player, index) => el("li", { class: "row" },
    el("span", { class: "rank", text: String(index + 1) }),
    el("span", { class: "player-name", text: player.name }),
    el("span", { class: "where", text: player.table }),
    el("span", { class: "stack", text: chips(player.stack) }))));
  const chipsInPlay = field.reduce((sum, player) => sum + player.stack, 0);
  setText($("summary"), keys.length
    ? `${keys.length} table${keys.length === 1 ? "" : "s"} · ${field.length} `
      + `player${field.length === 1 ? "" : "s"} · `
      + `${chips(chipsInPlay)} chips in play`
    : "No table is on air yet.");
  document.documentElement.dataset.tables = String(keys.length);
  renderPlaces(standings && standings.view ? standings.view.festival : null);
}

/** The festival's places decided so far, the winner first, with their prizes. */
function renderPlaces(festival) {
  const finishes = Object.entries(keyed(festival && festival.finishes))
    .map(([player, finish]) => ({ ...finish, player }))
    .filter((finish) => typeof finish.place === "number")
    .sort((a, b) => a.place - b.place);
  $("places-section").hidden = finishes.length === 0;
  $("places").replaceChildren(...finishes.map((finish) => el("li", { class: "row place",
    data: { place: finish.place } },
  el("span", { class: "rank", text: ordinal(finish.place) }),
  el("span", { class: "player-name", text: finish.player }),
  el("span", { class: "stack", text: finish.prize ? money(finish.prize) : "" }))));
}

function follow(key) {
  const entry = { view: null, status: "connecting", channel: null };
  tables.set(key, entry);
  const base = `${location.origin}/t/${encodeURIComponent(key)}/`;
  entry.channel = new Channel({ channel: "venue", page: "festival", base }).start();
  entry.channel.subscribe((view) => { entry.view = view; render(); });
  entry.channel.onStatus((status) => { entry.status = status; render(); });
}

async function refreshTables() {
  const notice = $("notice");
  try {
    const response = await fetch("/api/tables", { cache: "no-store" });
    const answer = await response.json();
    if (!response.ok) throw new Error(answer.error ? answer.error.message : response.status);
    for (const { table, channels } of answer.tables) {
      if (!tables.has(table) && channels.includes("venue")) follow(table);
    }
    notice.hidden = true;
    document.documentElement.dataset.connection = "live";
  } catch (error) {
    setText(notice, `The tables cannot be listed now (${error.message}); retrying.`);
    notice.hidden = false;
    document.documentElement.dataset.connection = "offline";
  }
  render();
}

const standings = standingsRelayed("venue") ? followStandings("venue", "festival") : null;
if (standings) standings.subscribe(() => render());
refreshTables();
setInterval(refreshTables, TABLES_EVERY_MS);
window.feltcast = { tables, render, standings };
