// The festival's places and prizes on a festival worker's pages (docs/festival.md).
//
// A table's own tournament view ranks only that table's busts among its own players; in a
// festival the places and prizes are the director's (R22 across the tables, hand-for-hand
// rounds included; R23), keyed (`finishes` by player, `payouts` by place) so that a bust's
// patch carries its own place, not the whole list. A worker that relays the director's
// standings marks its pages with the tables' channels that have them (<html
// data-standings="venue delayed">): the festival's channel it pairs with each is released no
// earlier than that channel shows the busts. A page on one of them reads them from
// /festival/ws/<its channel> and draws its table's view with them (withStandings). Pages
// served by a table's own service, or on a channel without standings, draw the table's view
// as it is.

import { Channel } from "./channel.js";

/** Whether this page's worker relays the festival's standings for the tables' `channel`. */
export function standingsRelayed(channel, doc = document) {
  const names = (doc.documentElement.dataset.standings || "").split(" ");
  return names.includes(channel);
}

/** The festival's standings beside this page's `channel` (a channel client, not started
 * marking the document: the table's channel does). */
export function followStandings(channel, page) {
  const base = new URL("/festival/", location.href).href;
  return new Channel({ channel, page, base, marks: false }).start();
}

/** A keyed object of the standings (`finishes` by player, `payouts` by place): its entries
 * that are objects, as an object without a prototype (a player may be named "constructor"). */
export function keyed(value) {
  const out = Object.create(null);
  if (!value || typeof value !== "object" || Array.isArray(value)) return out;
  for (const [key, entry] of Object.entries(value)) {
    if (entry && typeof entry === "object") out[key] = entry;
  }
  return out;
}

/**
 * `view` (a table's channel view) with the festival's places and prizes (`festival`: the
 * standings channel's view.festival): the players left and the entrants are the festival's,
 * the payouts are its paid places with their players, and each bust-out at this table
 * carries its festival place and prize, or none while the festival has not ranked it yet
 * (null place: the graphics show it once it is ranked). A view without a tournament, or
 * no standings, is returned as it is.
 */
export function withStandings(view, festival) {
  const tournament = view && view.tournament;
  if (!tournament || !festival || typeof festival !== "object") return view;
  const finishes = keyed(festival.finishes);
  const eliminations = (Array.isArray(tournament.eliminations) ? tournament.eliminations : [])
    .map((entry) => {
      // The festival knows a player by his table's name (his identity may name him
      // otherwise: "Ann Smith" at a table that seated "Ann").
      const key = entry && (entry.table_name || entry.name);
      const finish = typeof key === "string" && Object.hasOwn(finishes, key)
        ? finishes[key] : undefined;
      return { ...entry, place: finish ? finish.place : null,
        prize: finish && finish.prize ? finish.prize : null };
    });
  const rows = Object.entries(keyed(festival.payouts))
    .map(([place, row]) => ({ ...row, place: Number(place) }))
    .filter((row) => Number.isInteger(row.place) && row.place > 0)
    .sort((a, b) => a.place - b.place);
  const currency = tournament.payouts ? tournament.payouts.currency : null;
  const payouts = rows.length === 0 ? null : {
    prize_pool: rows.reduce((sum, row) => sum + (row.prize || 0), 0),
    currency,
    places: rows.map((row, index) => ({ place: row.place, prize: row.prize,
      name: row.player || null,
      jump: row.prize - (index + 1 < rows.length ? rows[index + 1].prize : 0) })),
    paid: rows.length,
    remaining: festival.remaining,
  };
  const field = { ...(tournament.field || {}), remaining: festival.remaining,
    entrants: festival.entrants };
  return { ...view, tournament: { ...tournament, eliminations, payouts, field,
    festival: { name: festival.name, hand_for_hand: festival.hand_for_hand } } };
}
