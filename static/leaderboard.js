// Chip counts / leaderboard (docs/pages.md): rank, flag, display name, stack, stack in big
// blinds, chip share; players remaining and the average stack; eliminated players greyed with
// their place and prize. One render(view) for the first paint and every update.
//   ?channel=delayed (default)  ?token=  ?rows=N (at most N players in play)  ?out=0 (hide
//   eliminated players)
import { KeyedList, el, setText, toggle } from "./js/dom.js";
import { bigBlindsText, blindsText, chips, flagElement, money, ordinal, playersLeftText,
  shareText, shownName, startGraphic, syncFlag, tournamentOf, numberParam }
  from "./js/tournament.js";

const $ = (id) => document.getElementById(id);

function createRow() {
  return el("li", { class: "row" },
    el("span", { class: "rank" }),
    flagElement(),
    el("span", { class: "name" }),
    el("span", { class: "stack" }),
    el("span", { class: "bb" }),
    el("span", { class: "share" },
      el("span", { class: "share-bar" }, el("span", { class: "share-fill" })),
      el("span", { class: "share-value" })));
}

function updatePlayer(node, player, leaderShare) {
  const q = (selector) => node.querySelector(selector);
  node.dataset.seat = String(player.seat);
  delete node.dataset.place;
  toggle(node, "out", false);
  toggle(node, "leader", player.rank === 1);
  setText(q(".rank"), typeof player.rank === "number" ? String(player.rank) : "");
  syncFlag(q(".flag"), player.country);
  setText(q(".name"), shownName(player));
  setText(q(".stack"), chips(player.stack));
  setText(q(".bb"), bigBlindsText(player.in_bb));
  // The bar is drawn against the chip leader (full width); the number is the share of all chips.
  const share = typeof player.share === "number" ? player.share : 0;
  const width = leaderShare > 0 ? Math.min(1, share / leaderShare) : 0;
  q(".share-fill").style.width = `${(width * 100).toFixed(2)}%`;
  setText(q(".share-value"), shareText(player.share));
}

function updateEliminated(node, out, currency) {
  const q = (selector) => node.querySelector(selector);
  node.dataset.place = String(out.place);
  delete node.dataset.seat;
  toggle(node, "out", true);
  toggle(node, "leader", false);
  setText(q(".rank"), ordinal(out.place));
  syncFlag(q(".flag"), out.country);
  setText(q(".name"), shownName(out));
  setText(q(".stack"), out.prize ? money(out.prize, currency) : "");
  setText(q(".bb"), "");
  q(".share-fill").style.width = "0%";
  setText(q(".share-value"), "");
}

const rows = new KeyedList($("rows"), createRow);
const query = new URLSearchParams(location.search);
const settings = {
  rows: numberParam(query, "rows", Infinity, 1),
  showOut: query.get("out") !== "0",
};
// Rows that fit the 1080-pixel stage under the panel's header; players in play come first,
// the eliminated fill what is left (the best places first).
const MAX_ROWS = 12;

/** The one render function: first paint and every update. */
export function render(view) {
  const tournament = tournamentOf(view);
  const stage = $("stage");
  toggle(stage, "empty", tournament === null);
  if (tournament === null) return;
  const field = tournament.field || {};
  const clock = tournament.clock || null;
  const currency = tournament.payouts ? tournament.payouts.currency : null;
  setText($("event-name"), tournament.name || (view.table ? view.table.name : ""));
  setText($("remaining"), playersLeftText(field));
  setText($("average"), chips(field.average));
  setText($("average-bb"), bigBlindsText(field.average_bb));
  setText($("level"), clock ? (clock.is_break ? clock.name || "Break" : `${clock.level}`) : "");
  setText($("blinds"), clock && !clock.is_break ? blindsText(clock) : "");

  const players = (Array.isArray(tournament.players) ? tournament.players : [])
    .filter((player) => player && typeof player.seat === "number")
    .sort((a, b) => (a.rank ?? Infinity) - (b.rank ?? Infinity) || b.stack - a.stack)
    .slice(0, Math.min(settings.rows, MAX_ROWS));
  const names = new Set(players.map((player) => player.name));
  const out = (settings.showOut && Array.isArray(tournament.eliminations)
    ? tournament.eliminations : [])
    .filter((entry) => entry && typeof entry.place === "number" && !names.has(entry.name))
    .sort((a, b) => a.place - b.place)
    .slice(0, MAX_ROWS - players.length);
  const leaderShare = Math.max(0, ...players.map((player) => player.share || 0));
  const items = [...players.map((player) => ({ key: `seat-${player.seat}`, player })),
    ...out.map((entry) => ({ key: `place-${entry.place}`, out: entry }))];
  rows.sync(items, (item) => item.key, (node, item) => (item.player
    ? updatePlayer(node, item.player, leaderShare) : updateEliminated(node, item.out, currency)));
  stage.dataset.rows = String(items.length);
  stage.dataset.channel = view.channel ? view.channel.name : "";
}

startGraphic("leaderboard", render);
