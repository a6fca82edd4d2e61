// A lower third for one player (docs/pages.md): photo, flag, display name, stack, position in
// the field, prize so far. It slides in when its player is known and out when not (and after
// ?hold= seconds, if set); a bust-out shows the finishing place and prize.
//   ?seat=N or ?player=NAME (display or full name, any case)  ?channel=delayed  ?token=
//   ?seat=cue: the seat the operator cues in the console's Graphics panel (the program's lower
//   third; it comes with the look on air), none while nothing is cued
//   ?hold=S (slide out after S seconds; default: stay)
//   ?stats=1 (a line of the player's session statistics: hands, VPIP, PFR, 3-bet, AF, WTSD)
import { setText, toggle } from "./js/dom.js";
import { bigBlindsText, chips, fieldPosition, money, numberParam, onObsVisible, ordinal,
  shownName, startGraphic, syncFlag, syncPhoto, tournamentOf } from "./js/tournament.js";

const $ = (id) => document.getElementById(id);

const query = new URLSearchParams(location.search);
const seatParam = query.get("seat");
const wanted = {
  cue: seatParam === "cue",
  seat: seatParam !== null && /^\d+$/.test(seatParam) ? Number(seatParam) : null,
  player: query.get("player"),
  hold: numberParam(query, "hold", 0, 0, 3600),
  stats: query.get("stats") === "1",
};
const shown = { key: null, expired: false, timer: null };

function sameName(person, name) {
  const target = name.trim().toLowerCase();
  return [person.display_name, person.name].some(
    (value) => typeof value === "string" && value.trim().toLowerCase() === target);
}

/** The selected player: {player} while in play, {out} once eliminated, or null. */
function findPlayer(tournament) {
  const players = Array.isArray(tournament.players) ? tournament.players : [];
  const outs = Array.isArray(tournament.eliminations) ? tournament.eliminations : [];
  if (wanted.seat !== null) {
    const player = players.find((p) => p && p.seat === wanted.seat);
    return player ? { player } : null;
  }
  if (wanted.player) {
    const player = players.find((p) => p && sameName(p, wanted.player));
    if (player) return { player };
    const out = outs.find((o) => o && sameName(o, wanted.player));
    return out ? { out } : null;
  }
  return null;
}

const pct = (value) => (typeof value === "number" ? `${Math.round(value * 100)}%` : null);

/** "40 hands · VPIP 25% · PFR 20% · 3-bet 5% · AF 2.5 · WTSD 30%" (unknowns left out). */
export function statsLine(stats) {
  if (!stats || typeof stats.hands !== "number" || stats.hands <= 0) return "";
  const parts = [`${stats.hands} ${stats.hands === 1 ? "hand" : "hands"}`];
  const add = (label, text) => { if (text !== null) parts.push(`${label} ${text}`); };
  add("VPIP", pct(stats.vpip));
  add("PFR", pct(stats.pfr));
  add("3-bet", pct(stats.three_bet));
  add("AF", typeof stats.af === "number" ? stats.af.toFixed(1) : null);
  add("WTSD", pct(stats.wtsd));
  return parts.join(" · ");
}

/** Slide in for a new player (replaying the entrance), stay, or slide out. */
function slide(key) {
  const third = $("third");
  if (key === null) {
    clearTimeout(shown.timer);
    shown.key = null;
    third.classList.remove("shown");
    return;
  }
  if (key !== shown.key) {
    shown.key = key;
    shown.expired = false;
    third.classList.remove("shown");
    void third.offsetWidth; // restart the entrance from the left
    clearTimeout(shown.timer);
    if (wanted.hold > 0) {
      shown.timer = setTimeout(() => {
        shown.expired = true;
        third.classList.remove("shown");
      }, wanted.hold * 1000);
    }
  }
  toggle(third, "shown", !shown.expired);
}

/** The one render function: first paint and every update. */
export function render(view) {
  const tournament = tournamentOf(view);
  const found = tournament ? findPlayer(tournament) : null;
  const third = $("third");
  if (!found) {
    slide(null);
    return;
  }
  const person = found.player || found.out;
  const currency = tournament.payouts ? tournament.payouts.currency : null;
  syncPhoto($("photo"), person.photo, person.name || shownName(person));
  syncFlag($("flag"), person.country);
  setText($("name"), shownName(person));
  const full = person.name && person.name !== shownName(person) ? person.name : "";
  setText($("full-name"), full);
  toggle(third, "out", Boolean(found.out));
  if (found.player) {
    const player = found.player;
    setText($("status"), player.seat === (tournament.field || {}).chip_leader
      ? "Chip leader" : "");
    setText($("stack-label"), "Chips");
    setText($("stack"), chips(player.stack));
    setText($("bb"), bigBlindsText(player.in_bb));
    setText($("position-label"), "Position");
    setText($("position"), fieldPosition(player, tournament.field));
    setText($("prize"), player.prize_so_far ? money(player.prize_so_far, currency) : "");
    const stats = tournament.stats ? tournament.stats[String(player.seat)] : null;
    setText($("stats"), wanted.stats ? statsLine(stats) : "");
  } else {
    const out = found.out;
    setText($("status"), "Eliminated");
    setText($("stack-label"), "Finished");
    setText($("stack"), ordinal(out.place));
    setText($("bb"), "");
    setText($("position-label"), "Hand");
    setText($("position"), typeof out.hand === "number" ? String(out.hand) : "");
    setText($("prize"), out.prize ? money(out.prize, currency) : "");
    setText($("stats"), "");
  }
  $("prize-fact").hidden = $("prize").textContent === "";
  $("stats").hidden = $("stats").textContent === "";
  toggle(third, "with-stats", !$("stats").hidden); // (no :has(): OBS's older Chromium)
  const key = found.player ? `seat-${found.player.seat}-${found.player.name}`
    : `out-${found.out.place}`;
  slide(key);
}

const { channel } = startGraphic("lowerthird", render);
if (wanted.cue) {
  channel.onTheme((theme) => {
    const seat = Number.isInteger(theme.lowerthird) ? theme.lowerthird : null;
    if (seat === wanted.seat) return;
    wanted.seat = seat;
    if (channel.view) render(channel.view);
  });
}
onObsVisible(() => {
  // The producer brought the source on air again: replay the entrance (and the hold).
  shown.key = null;
  if (channel.view) render(channel.view);
});
