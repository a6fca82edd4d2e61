// Shared by the tournament graphics (leaderboard, lower third, elimination, payouts, clock) and
// the overlay's clock bug: formats, flags and photos with their fallbacks, countdowns, and the
// boilerplate every graphic page repeats. The view's "tournament" object is described in
// docs/view-model.md; anything unknown is null and is shown as nothing, never as 0.
import { connectChannel, pageParams } from "./channel.js";
import { followTheme } from "./graphics.js";
import { followStandings, standingsRelayed, withStandings } from "./standings.js";
import { bigBlinds, chips, clockText, el, fitStage, loadFonts, percent, setText, showOnAir,
  toggle } from "./dom.js";

export { chips, clockText };

/** The view's tournament object, or null (a service without tournament context). */
export function tournamentOf(view) {
  return view && view.tournament && typeof view.tournament === "object" ? view.tournament : null;
}

/** 1 → "1st", 2 → "2nd", 11 → "11th", 23 → "23rd". */
export function ordinal(place) {
  if (typeof place !== "number" || !Number.isFinite(place)) return "";
  const tens = place % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th"
    : ({ 1: "st", 2: "nd", 3: "rd" })[place % 10] || "th";
  return `${place}${suffix}`;
}

/** 20 → "20.0 BB", 142.3 → "142 BB" (one decimal below 100). */
export function bigBlindsText(value) {
  return typeof value === "number" && Number.isFinite(value) ? bigBlinds(value) : "";
}

const MONEY = new Map();

/** 30000, "EUR" → "€30,000"; an unknown currency code is written after the number. */
export function money(amount, currency) {
  if (amount === null || amount === undefined) return "";
  if (!currency) return chips(amount);
  let format = MONEY.get(currency);
  if (format === undefined) {
    try {
      format = new Intl.NumberFormat("en-US", { style: "currency", currency,
        currencyDisplay: "narrowSymbol", maximumFractionDigits: 0, minimumFractionDigits: 0 });
    } catch (error) {
      format = null; // not an ISO 4217 code: "30,000 CHIPS"
    }
    MONEY.set(currency, format);
  }
  return format ? format.format(amount) : `${chips(amount)} ${currency}`;
}

/** 0.2413 → "24.1%". */
export function shareText(share) {
  return typeof share === "number" && Number.isFinite(share) ? percent(share) : "";
}

/** "Blinds 300 / 600" parts of a clock level ({small_blind, big_blind, ante}). */
export function blindsText(level) {
  if (!level || typeof level.big_blind !== "number") return "";
  return `${chips(level.small_blind)} / ${chips(level.big_blind)}`;
}

export function anteText(level) {
  return level && level.ante ? `Ante ${chips(level.ante)}` : "";
}

/**
 * Now on the clock the tournament object's times are written in (docs/view-model.md): the
 * server's wall time, estimated by the channel client. The server already shifts a delayed
 * channel's clock times by its delay (its `as_of` is when the viewer sees that moment), so a
 * page never subtracts the delay again: Channel.viewNow() is the view's log time, and the
 * delay added back gives the server's time, with the same never-before-the-view guard.
 */
export function wallNow(channel) {
  const info = channel && channel.view && channel.view.channel ? channel.view.channel : {};
  return channel.viewNow() + (info.delay || 0);
}

/**
 * Seconds left in the level at `now` (wallNow()): the view says `remaining` at `as_of`; a
 * running clock counts down from there locally, a paused (or not yet started) one stands
 * still. Null when the clock is unknown.
 */
export function levelRemaining(clock, now) {
  if (!clock || typeof clock.remaining !== "number") return null;
  if (!clock.running || typeof clock.as_of !== "number") return Math.max(0, clock.remaining);
  return Math.max(0, clock.remaining - Math.max(0, now - clock.as_of));
}

/**
 * The level clock, the one way every page reads it: `{ remaining, running, tournament }` or
 * null. The tournament clock (R21, `tournament.clock`, on the server's time: wallNow()) once
 * the floor has started it; before that the table level's end (`table.level.ends_at`, log
 * time: Channel.viewNow()), running; with `unstarted` (the clock graphic, the director's
 * panel) the tournament clock not started yet, standing still, in its place.
 */
export function levelClock(view, channel, { unstarted = false } = {}) {
  const tournament = tournamentOf(view);
  const clock = tournament ? tournament.clock : null;
  const known = clock && typeof clock.remaining === "number";
  if (known && (clock.started !== false || unstarted)) {
    return { remaining: levelRemaining(clock, wallNow(channel)),
      running: Boolean(clock.running), tournament: true };
  }
  const level = view && view.table ? view.table.level : null;
  if (!unstarted && level && typeof level.ends_at === "number") {
    return { remaining: Math.max(0, level.ends_at - channel.viewNow()), running: true,
      tournament: false };
  }
  return null;
}

/** R12 action clock: seconds left at `now` (wallNow()), or null when no clock is called. */
export function actionClockRemaining(actionClock, now) {
  if (!actionClock || typeof actionClock.ends_at !== "number") return null;
  return Math.max(0, actionClock.ends_at - now);
}

/** True in the R12 clock's final ten seconds (its `countdown_at`, else ends_at - 10 s). */
export function actionClockFinal(actionClock, now) {
  if (!actionClock || typeof actionClock.ends_at !== "number") return false;
  const from = typeof actionClock.countdown_at === "number" ? actionClock.countdown_at
    : actionClock.ends_at - ACTION_CLOCK_FINAL;
  return now >= from;
}

/** R12: a called clock runs one minute, then a final ten-second countdown. */
export const ACTION_CLOCK_FINAL = 10;

const COUNTRY = /^[A-Z]{2}$/;

/** An ISO 3166-1 alpha-2 code (upper case) or null: nothing else ever becomes a URL. */
export function countryCode(country) {
  return typeof country === "string" && COUNTRY.test(country) ? country : null;
}

/** An empty flag holder; fill it with syncFlag(). */
export function flagElement(className = "flag") {
  return el("span", { class: `${className} none`, attrs: { role: "img" } });
}

/**
 * Show `country`'s bundled flag in `node` (from /static/flags/<code>.svg). A missing flag file
 * falls back to the code written in a badge; no country hides the holder. Unchanged codes keep
 * their element (no new request).
 */
export function syncFlag(node, country) {
  const code = countryCode(country);
  const key = code || "";
  if (node.dataset.country === key) return;
  node.dataset.country = key;
  node.classList.remove("missing");
  toggle(node, "none", code === null);
  node.setAttribute("aria-label", code || "");
  if (code === null) {
    node.replaceChildren();
    return;
  }
  const img = el("img", { class: "flag-img",
    attrs: { src: `/static/flags/${code.toLowerCase()}.svg`, alt: "", draggable: "false" } });
  img.addEventListener("error", () => {
    if (node.dataset.country !== key) return;
    node.classList.add("missing");
    img.remove();
  });
  node.replaceChildren(img, el("span", { class: "flag-code", text: code }));
}

/** "Ann Smith" → "AS"; a single name gives its first two letters. */
export function initials(name) {
  const words = String(name || "").trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return "";
  if (words.length === 1) return [...words[0]].slice(0, 2).join("").toUpperCase();
  return ([...words[0]][0] + [...words[words.length - 1]][0]).toUpperCase();
}

/** Only a same-origin path is ever loaded as a photo: a page never reaches off the server. */
export function localPath(url) {
  return typeof url === "string" && url.startsWith("/") && !url.startsWith("//")
    && !url.includes("\\") ? url : null;
}

/** An empty photo holder; fill it with syncPhoto(). */
export function photoElement(className = "photo") {
  return el("div", { class: `${className} no-photo` },
    el("span", { class: "initials" }));
}

/**
 * The player's photo in `node`, or their initials when there is none or it fails to load.
 */
export function syncPhoto(node, photo, name) {
  setText(node.querySelector(".initials"), initials(name));
  const path = localPath(photo);
  const key = path || "";
  if (node.dataset.photo === key) return;
  node.dataset.photo = key;
  const old = node.querySelector("img");
  if (old) old.remove();
  toggle(node, "no-photo", path === null);
  if (path === null) return;
  const img = el("img", { attrs: { src: path, alt: "", draggable: "false" } });
  img.addEventListener("error", () => {
    if (node.dataset.photo !== key) return;
    img.remove();
    node.classList.add("no-photo");
  });
  node.append(img);
}

/** The name a graphic shows: the display name, else the full name. */
export function shownName(person) {
  if (!person) return "";
  return person.display_name || person.name || "";
}

/** The field's place of a seated player: "2nd of 7". */
export function fieldPosition(player, field) {
  if (!player || typeof player.rank !== "number") return "";
  const remaining = field && typeof field.remaining === "number" ? field.remaining : null;
  return remaining ? `${ordinal(player.rank)} of ${remaining}` : ordinal(player.rank);
}

/** Players left in the field: "7 / 120", or "7" when the entrants are unknown. */
export function playersLeftText(field) {
  const remaining = field && typeof field.remaining === "number" ? field.remaining : null;
  if (remaining === null) return "";
  return field.entrants ? `${remaining} / ${field.entrants}` : String(remaining);
}

/** A countdown that redraws `tick()` several times a second (whole seconds stay on time). */
export function everyTick(tick, intervalMs = 200) {
  tick();
  return setInterval(tick, intervalMs);
}

/**
 * The boilerplate of a graphic page: fonts, query settings (`?channel=`, default "delayed",
 * `?token=`), the one channel client, `render` subscribed for first paint and every update.
 * Returns {channel, params}; `window.feltcast` exposes them for tests and OBS debugging.
 */
export function startGraphic(page, render) {
  // Texts are fitted by measuring them in their font: once the fonts are in, fit them again.
  loadFonts().then(() => draw());
  fitStage();
  const params = pageParams({ channel: "delayed" });
  const channel = connectChannel({ channel: params.channel, page, token: params.token });
  // On a festival worker that relays them, the festival's places and prizes (js/standings.js):
  // the page draws once both its table's view and the standings are in.
  const standings = standingsRelayed(params.channel)
    ? followStandings(params.channel, page) : null;
  function draw() {
    if (!channel.view || (standings && !standings.view)) return;
    render(standings ? withStandings(channel.view, standings.view.festival) : channel.view);
  }
  // The first render waits for the page's module to finish (in the composed program the
  // shared channel may hold a view already, and subscribe renders it at once).
  queueMicrotask(() => {
    channel.subscribe((view) => {
      showOnAir(view);
      draw();
    });
    if (standings) standings.subscribe(() => draw());
  });
  followTheme(channel, { onChange: () => draw() });
  window.feltcast = { channel, render, params, standings };
  return { channel, params };
}

/**
 * OBS's browser source tells a page when its source becomes visible (`obsSourceVisibleChanged`):
 * a graphic replays its entrance then. Outside OBS the event never fires.
 */
export function onObsVisible(callback) {
  window.addEventListener("obsSourceVisibleChanged", (event) => {
    if (event.detail && event.detail.visible) callback();
  });
}

/** `?name=` as a number within [min, max], else `fallback`. */
export function numberParam(query, name, fallback, min = 0, max = Infinity) {
  const raw = query.get(name);
  if (raw === null || raw.trim() === "") return fallback;
  const value = Number(raw);
  return Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : fallback;
}

/** The level a page shows: the table's (the running hand's, R21); before this channel has
 * shown a hand (the security delay has not passed yet), the tournament clock's; else null. */
export function levelOf(view) {
  const level = view && view.table ? view.table.level : null;
  if (level && typeof level.number === "number" && typeof level.big_blind === "number") {
    return level;
  }
  const tournament = tournamentOf(view);
  const clock = tournament ? tournament.clock : null;
  if (clock && typeof clock.level === "number" && typeof clock.big_blind === "number") {
    return { number: clock.level, small_blind: clock.small_blind, big_blind: clock.big_blind,
      ante: clock.ante, ante_mode: level ? level.ante_mode : null };
  }
  return null;
}

/** The tournament's player in `seat` (a seat number): identity, stack, share, rank; or null. */
export function playerAt(view, seat) {
  const tournament = tournamentOf(view);
  return tournament && Array.isArray(tournament.players)
    ? tournament.players.find((p) => p.seat === seat) || null : null;
}

/**
 * The one name every graphic shows for the player in `seat`: his display name (set_player,
 * the CSV import), else his full name, else the table's name of him (docs/pages.md).
 */
export function seatName(view, seat) {
  return shownName(playerAt(view, seat.seat)) || seat.name || `Seat ${seat.seat}`;
}

/** A player whose last chips went in this hand: out of the tournament once it is over. */
export function isBusted(seat, view) {
  return seat.stack === 0 && !seat.bet && !seat.winner && Boolean(view)
    && view.table.street === "over";
}
