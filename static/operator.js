// The operator console: touch-first action tracker for a tablet. It reads the operator channel
// (docs/view-model.md, "The operator object") and sends typed, acknowledged commands
// (docs/commands.md). It never decides what is legal: buttons follow operator.legal and every
// rejection shows the server's own message.
import { Channel, pageParams } from "./js/channel.js";
import { cardElement, isCardCode } from "./js/cards.js";
import { renderDecks, wireDecks } from "./js/decks.js";
import { renderDevices, wireDevices } from "./js/devices.js";
import { renderGraphics, wireGraphics } from "./js/graphics-panel.js";
import { Keypad } from "./js/keypad.js";
import { renderTournament, tickTournamentClock, wireTournament }
  from "./js/operator-tournament.js";
import { KeyedList, chips, clockText, el, loadFonts, setText, toggle } from "./js/dom.js";
import { actionClockRemaining, tournamentOf, wallNow } from "./js/tournament.js";

const TOKEN_KEY = "feltcast.operator.token";
const STREET_LABELS = { preflop: "Pre-flop", flop: "Flop", turn: "Turn", river: "River",
  showdown: "Showdown", over: "Hand over" };
const RANKS = ["A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3", "2"];
const SUITS = ["s", "h", "d", "c"];

const $ = (id) => document.getElementById(id);
const state = { view: null, busy: false, token: null, ruling: null,
  manual: [], manualLast: null, rankTyped: null, channel: null, confirm: null,
  sheetSeat: null, awaitRevision: null, awaitUntil: 0 };

// ---------------------------------------------------------------- commands

/** A v4 UUID; crypto.randomUUID needs a secure context, a tablet on the LAN may not have one. */
export function commandId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-`
    + hex.slice(20);
}

function showError(error) {
  setText($("error-message"), error.message || "The server rejected the command");
  const detail = [error.code, error.rule].filter(Boolean).join(" · ");
  setText($("error-detail"), detail);
  const ruling = error.ruling;
  state.ruling = ruling && typeof ruling === "object" && ruling.command ? ruling.command : null;
  const apply = $("apply-ruling");
  apply.hidden = !state.ruling;
  if (state.ruling) {
    const text = typeof ruling.text === "string" ? ruling.text : "";
    setText(apply, text ? `Apply: ${text}` : "Apply the ruling");
  }
  if (ruling && typeof ruling === "string") setText($("error-detail"), `${detail} · ${ruling}`);
  $("error").hidden = false;
}

function clearError() {
  $("error").hidden = true;
  state.ruling = null;
}

function setBusy(busy) {
  state.busy = busy;
  document.body.classList.toggle("busy", isBusy());
  if (state.view) render(state.view);
}

/**
 * A command is in flight, or its acknowledgement named a revision of the operator channel
 * this page has not shown yet: nothing is sent from a view that does not include it.
 */
function isBusy() {
  if (state.busy) return true;
  if (state.awaitRevision === null) return false;
  const shown = state.channel && state.channel.revision !== null ? state.channel.revision : 0;
  if (shown >= state.awaitRevision || Date.now() > state.awaitUntil) {
    state.awaitRevision = null;
    return false;
  }
  return true;
}

/** The commands built on the hand screen's view: they carry the revision the operator saw,
 * so that one built on a state another device has changed since is refused (409), never
 * applied to whoever is to act now. */
const VIEW_COMMANDS = new Set(["fold", "check", "call", "bet", "raise_to", "all_in", "undo",
  "misdeal", "next_hand", "deal_cards", "deal_board", "show_hand", "muck_hand", "restrict",
  "set_absent", "call_clock", "stop_clock", "set_level", "set_seat", "empty_seat",
  "set_button"]);

/** POST one command; resolves to the reply (ok or error), never throws. */
export async function sendCommand(type, fields = {}) {
  const command = { id: commandId(), type, ...fields };
  const seen = state.channel ? state.channel.revision : null;
  if (VIEW_COMMANDS.has(type) && typeof seen === "number") command.revision = seen;
  return call("POST", "/api/commands", JSON.stringify(command), "application/json");
}

/**
 * POST raw bytes (a player photo, a players CSV) with the operator token; the same busy state,
 * error banner and token handling as a command. Resolves to the reply, never throws.
 */
export async function sendUpload(path, body, contentType) {
  return call("POST", path, body, contentType);
}

/**
 * Another API route with the operator token (the device tokens: GET, POST and DELETE of
 * /api/devices), `fields` sent as JSON. A change (POST, DELETE) has a command's busy state,
 * error banner and token handling; a GET is a quiet read (no busy state, no banner: the panel
 * that asked shows what went wrong). Resolves to the reply, never throws.
 */
export async function sendRequest(method, path, fields) {
  return call(method, path, fields === undefined ? undefined : JSON.stringify(fields),
    fields === undefined ? undefined : "application/json");
}

async function call(method, path, body, contentType) {
  const change = method !== "GET";
  if (change && state.busy) return null;
  if (change) setBusy(true);
  let reply;
  try {
    const headers = { Authorization: `Bearer ${state.token}` };
    if (contentType) headers["Content-Type"] = contentType;
    const response = await fetch(path, { method, headers, body });
    reply = await response.json().catch(() => ({ error: { code: `http_${response.status}`,
      message: `The server answered ${response.status} ${response.statusText}` } }));
    if (response.status === 401) {
      sessionStorage.removeItem(TOKEN_KEY);
      showLogin(reply.error ? reply.error.message : "The operator token was refused");
    }
  } catch (error) {
    reply = { error: { code: "unreachable", message: change ? "The server cannot be "
      + "reached; the command was not sent. Try again." : "The server cannot be reached." } };
  }
  if (!change) return reply;
  if (reply && reply.ok && typeof reply.revision === "number") {
    state.awaitRevision = reply.revision;
    state.awaitUntil = Date.now() + 3000; // a view that never comes: the status bar says why
    setTimeout(() => { if (state.view) render(state.view); }, 3100);
  }
  setBusy(false);
  if (reply && reply.ok) clearError();
  else showError((reply && reply.error) || { message: "Unexpected answer from the server" });
  return reply;
}

// ---------------------------------------------------------------- keypad

const keypad = new Keypad(renderKeypad);

function amountMode(legal) {
  if (!legal) return null;
  if (legal.bet) return { type: "bet", label: "Bet", ...legal.bet };
  if (legal.raise) return { type: "raise_to", label: "Raise to", ...legal.raise };
  return null;
}

/** The current street bet of the seat to act (what a "to" amount already includes). */
function betInFront(view, legal) {
  const seat = legal && view ? (view.seats || []).find((s) => s.seat === legal.seat) : null;
  return seat && seat.bet ? seat.bet : 0;
}

/** `label` with the street total, and the chips it adds beside: "Call 24,000", "+16,000". */
function labelAmount(button, label, total, added) {
  if (!button.firstElementChild) {
    button.replaceChildren(el("span", { class: "label" }), el("span", { class: "added" }));
  }
  setText(button.firstElementChild, total === null ? label : `${label} ${chips(total)}`);
  setText(button.lastElementChild, added === null || added === total ? "" : `+${chips(added)}`);
}

function renderKeypad() {
  const view = state.view;
  const legal = view && view.operator ? view.operator.legal : null;
  const mode = amountMode(legal);
  const inFront = betInFront(view, legal);
  const amount = keypad.amount;
  setText($("amount"), chips(amount));
  toggle($("amount"), "predicted", keypad.predicted !== null);
  $("amount").title = keypad.predicted !== null ? `typed ${chips(keypad.value)}, completed` : "";
  setText($("amount-added"), mode && amount > 0 && inFront
    ? `+${chips(amount - inFront)} added` : "");
  setText($("amount-label"), mode ? mode.label : "Bet / raise");
  setText($("amount-min"), mode ? `min ${chips(mode.min)}` : "");
  setText($("amount-max"), mode ? `max ${chips(mode.max)}` : "");
  toggle($("amount"), "clamped", keypad.clamped);
  toggle($("keypad"), "below-min", keypad.belowMin);
  setText($("ruling"), keypad.belowMin && legal ? legal.ruling : keypad.clamped
    ? `Capped at the maximum, ${chips(keypad.max)} (all-in)` : "");
  const submit = $("btn-amount");
  submit.disabled = isBusy() || !mode || amount <= 0;
  setText(submit, mode && amount > 0 ? `${mode.label} ${chips(amount)}`
    : mode ? mode.label : "Bet / raise");
  for (const key of document.querySelectorAll("#keypad .key[data-key]")) {
    key.disabled = !mode;
  }
  renderPresets(mode ? legal : null);
}

/** The engine's sizes for this decision (docs/view-model.md, operator.legal.presets). */
function renderPresets(legal) {
  const presets = legal && Array.isArray(legal.presets) ? legal.presets : [];
  const container = $("presets");
  const signature = presets.map((p) => `${p.key}=${p.amount}`).join("|");
  if (container.dataset.signature !== signature) {
    container.dataset.signature = signature;
    container.replaceChildren(...presets.map((preset, index) => {
      const button = el("button", { class: "preset", data: { preset: preset.key,
        amount: preset.amount }, attrs: { type: "button",
        "aria-label": `${preset.label}: ${chips(preset.amount)}`,
        title: `${preset.label}: to ${chips(preset.amount)} (Shift+${index + 1})` } },
      el("span", { class: "preset-label", text: preset.label }),
      el("span", { class: "preset-amount", text: shortChips(preset.amount) }));
      button.addEventListener("click", () => keypad.choose(preset.amount));
      return button;
    }));
  }
  for (const button of container.children) {
    button.disabled = isBusy();
    toggle(button, "chosen", keypad.amount > 0
      && Number(button.dataset.amount) === keypad.amount);
  }
}

/** 1250000 → "1.25M", 48000 → "48K", 950 → "950": a preset's amount in a narrow key. */
function shortChips(amount) {
  const scaled = (value, unit) => `${Number(value.toFixed(value < 10 ? 2 : 1))}${unit}`;
  if (amount >= 1e6) return scaled(amount / 1e6, "M");
  if (amount >= 1e4) return scaled(amount / 1e3, "K");
  return chips(amount);
}

// ---------------------------------------------------------------- seats

function createSeatRow() {
  const row = el("li", { class: "seat" },
    el("span", { class: "seat-no" }),
    el("div", { class: "seat-main" },
      el("div", { class: "seat-line" },
        el("span", { class: "name" }),
        el("span", { class: "position" }),
        el("span", { class: "status" })),
      el("div", { class: "seat-line" },
        el("span", { class: "stack" }),
        el("span", { class: "bet" }),
        el("span", { class: "last-action" }))),
    el("div", { class: "hole" }),
    el("div", { class: "tools" },
      el("button", { class: "btn tool show", text: "Show", attrs: { type: "button" } }),
      el("button", { class: "btn tool muck", text: "Muck", attrs: { type: "button" } }),
      el("button", { class: "btn tool more", text: "⋯", attrs: { type: "button" } })));
  const seatNumber = () => Number(row.dataset.seat);
  row.querySelector(".show").addEventListener("click",
    () => sendCommand("show_hand", { seat: seatNumber() }));
  row.querySelector(".muck").addEventListener("click",
    () => sendCommand("muck_hand", { seat: seatNumber() }));
  row.querySelector(".more").addEventListener("click", () => openSeatSheet(seatNumber()));
  return row;
}

function inHand(view) {
  const street = view && view.table ? view.table.street : null;
  return Boolean(view && view.operator && !view.operator.between_hands) && Boolean(street)
    && street !== "over";
}

function updateSeatRow(row, seat, editable) {
  const q = (selector) => row.querySelector(selector);
  row.dataset.seat = String(seat.seat);
  toggle(row, "to-act", seat.to_act);
  toggle(row, "folded", seat.folded);
  toggle(row, "empty-seat", seat.name === null);
  toggle(row, "editable", editable);
  setText(q(".seat-no"), seat.seat);
  setText(q(".name"), seat.name === null ? "empty" : seat.name);
  setText(q(".position"), seat.position);
  q(".position").hidden = !seat.position;
  const status = seat.all_in ? "all-in" : seat.folded ? "folded" : seat.sitting_out ? "away" : "";
  setText(q(".status"), status);
  setText(q(".stack"), seat.name === null ? "" : chips(seat.stack));
  setText(q(".bet"), seat.bet ? `bet ${chips(seat.bet)}` : "");
  setText(q(".last-action"), seat.last_action);
  const cards = Array.isArray(seat.cards) ? seat.cards : [];
  const key = cards.map((c) => c || "?").join(" ");
  if (q(".hole").dataset.key !== key) {
    q(".hole").dataset.key = key;
    q(".hole").replaceChildren(...cards.map((code) => cardElement(code, "mini")));
  }
  // Show and muck stay on the row at the end of a hand; the rarer tools (R10, R11, the seat
  // editor) are in the seat's sheet, one tap away (⋯).
  const street = state.view && state.view.table ? state.view.table.street : null;
  const live = seat.name !== null && !seat.folded && (seat.cards || []).length > 0;
  q(".show").hidden = !(inHand(state.view) && live
    && (street === "river" || street === "showdown"));
  q(".muck").hidden = q(".show").hidden;
  const more = q(".more");
  more.setAttribute("aria-label", `seat ${seat.seat} tools`);
  more.hidden = seat.name === null && !editable;
  for (const node of row.querySelectorAll(".tools button")) node.disabled = isBusy();
}

// ---------------------------------------------------------------- sheets

const SHEETS = ["confirm", "seat-sheet", "manual", "tag-sheet", "keys-help"];

/** The open sheet on top (confirm over the others), or null. */
function openSheet() {
  return SHEETS.find((id) => !$(id).hidden) || null;
}

function closeSheet(id) {
  $(id).hidden = true;
  if (id === "confirm") state.confirm = null;
  if (id === "seat-sheet") state.sheetSeat = null;
}

/**
 * A rare, costly change asks first (a misdeal, an exposed card, emptying a seat, a level
 * change); fold, check, call, raise and all-in never do.
 */
function confirmThen(text, yes, action) {
  state.confirm = action;
  setText($("confirm-text"), text);
  setText($("btn-confirm-yes"), yes);
  $("confirm").hidden = false;
  $("btn-confirm-yes").focus();
}

function openSeatSheet(seatNumber) {
  state.sheetSeat = seatNumber;
  const sheet = $("seat-sheet");
  for (const input of sheet.querySelectorAll(".editor input")) delete input.dataset.dirty;
  sheet.hidden = false;
  renderSeatSheet();
}

function renderSeatSheet() {
  const sheet = $("seat-sheet");
  const view = state.view;
  if (sheet.hidden || !view) return;
  const seat = (view.seats || []).find((s) => s.seat === state.sheetSeat);
  if (!seat) { closeSheet("seat-sheet"); return; }
  const editable = Boolean(view.operator && view.operator.between_hands);
  const q = (selector) => sheet.querySelector(selector);
  setText($("seat-sheet-title"), `Seat ${seat.seat}${seat.name ? ` · ${seat.name}` : ""}`);
  const live = seat.name !== null && !seat.folded && (seat.cards || []).length > 0;
  q(".restrict").hidden = !(inHand(view) && live);
  q(".away").hidden = seat.name === null;
  setText(q(".away"), seat.sitting_out ? "Back (R11)" : "Away (R11)");
  q(".editor").hidden = !editable;
  q(".empty").hidden = seat.name === null;
  const name = q(".edit-name");
  const stack = q(".edit-stack");
  if (!name.dataset.dirty && document.activeElement !== name) name.value = seat.name || "";
  if (!stack.dataset.dirty && document.activeElement !== stack) {
    stack.value = seat.name === null ? "" : String(seat.stack);
  }
  for (const node of sheet.querySelectorAll("button:not(#btn-seat-close), input")) {
    node.disabled = isBusy();
  }
}

function wireSeatSheet() {
  const sheet = $("seat-sheet");
  const q = (selector) => sheet.querySelector(selector);
  const seatOfSheet = () => state.sheetSeat;
  const seatName = () => {
    const seat = (state.view.seats || []).find((s) => s.seat === seatOfSheet());
    return seat && seat.name ? seat.name : `seat ${seatOfSheet()}`;
  };
  for (const input of sheet.querySelectorAll(".editor input")) {
    input.addEventListener("input", () => { input.dataset.dirty = "1"; });
  }
  $("btn-seat-close").addEventListener("click", () => closeSheet("seat-sheet"));
  q(".restrict").addEventListener("click", () => {
    const seat = seatOfSheet();
    confirmThen(`${seatName()} exposed a hole card: he may only call or fold for the rest of `
      + "the hand (R10).", "Yes, restrict him", () => sendCommand("restrict", { seat })
      .then((reply) => { if (reply && reply.ok) closeSheet("seat-sheet"); }));
  });
  q(".away").addEventListener("click", () => {
    const seat = (state.view.seats || []).find((s) => s.seat === seatOfSheet());
    sendCommand("set_absent", { seat: seatOfSheet(), absent: !(seat && seat.sitting_out) });
  });
  q(".button-here").addEventListener("click",
    () => sendCommand("set_button", { seat: seatOfSheet() }));
  q(".save").addEventListener("click", () => {
    const name = q(".edit-name");
    const stack = q(".edit-stack");
    const digits = stack.value.replace(/[,\s_.]/g, "");
    sendCommand("set_seat", { seat: seatOfSheet(), name: name.value.trim(),
      stack: /^\d+$/.test(digits) ? Number(digits) : digits }).then((reply) => {
      if (reply && reply.ok) { delete name.dataset.dirty; delete stack.dataset.dirty; }
    });
  });
  q(".empty").addEventListener("click", () => {
    const seat = seatOfSheet();
    confirmThen(`Remove ${seatName()} from seat ${seat}? The seat becomes empty.`,
      "Yes, empty the seat", () => sendCommand("empty_seat", { seat }).then((reply) => {
        if (reply && reply.ok) closeSheet("seat-sheet");
      }));
  });
  $("btn-confirm-no").addEventListener("click", () => closeSheet("confirm"));
  $("btn-confirm-yes").addEventListener("click", () => {
    const action = state.confirm;
    closeSheet("confirm");
    if (action) action();
  });
}

const seatRows = new KeyedList($("seats"), createSeatRow);

// ---------------------------------------------------------------- manual cards

function buildPicker() {
  const picker = $("picker");
  for (const suit of SUITS) {
    for (const rank of RANKS) {
      const code = `${rank}${suit}`;
      const button = el("button", { class: "pick", data: { card: code },
        attrs: { type: "button", "aria-label": code } }, cardElement(code, "mini"));
      button.addEventListener("click", () => {
        const index = state.manual.indexOf(code);
        if (index >= 0) state.manual.splice(index, 1); else state.manual.push(code);
        renderManual();
      });
      picker.append(button);
    }
  }
}

function manualTargets(view) {
  const needed = (view.operator && view.operator.cards_needed) || [];
  const targets = needed.map((need) => (need.target === "board"
    ? { value: "board", text: `Board (${need.count} missing)` }
    : { value: `seat:${need.seat}`, text: `Seat ${need.seat} (${need.count} missing)` }));
  const listed = new Set(targets.map((t) => t.value));
  if (!listed.has("board")) targets.push({ value: "board", text: "Board" });
  for (const seat of view.seats || []) {
    if (seat.name !== null && !listed.has(`seat:${seat.seat}`)) {
      targets.push({ value: `seat:${seat.seat}`, text: `Seat ${seat.seat} ${seat.name}` });
    }
  }
  return targets;
}

function renderManual() {
  const view = state.view;
  if (!view) return;
  const needed = (view.operator && view.operator.cards_needed) || [];
  const select = $("manual-target");
  const targets = manualTargets(view);
  const signature = targets.map((t) => `${t.value}=${t.text}`).join("|");
  if (select.dataset.signature !== signature) {
    const current = select.value;
    select.dataset.signature = signature;
    select.replaceChildren(...targets.map((t) => el("option", { text: t.text,
      attrs: { value: t.value } })));
    // A target missing cards comes first; else the operator's choice stays.
    const missing = targets.filter((t) => t.text.includes("missing")).map((t) => t.value);
    if (missing.length > 0 && !missing.includes(current)) select.value = missing[0];
    else if (targets.some((t) => t.value === current)) select.value = current;
  }
  // Once the cards just entered arrived, the next target still missing cards is chosen;
  // with none left, the picker closes.
  if (state.manualLast) {
    const valueOf = (need) => (need.target === "board" ? "board" : `seat:${need.seat}`);
    if (!needed.some((need) => valueOf(need) === state.manualLast)) {
      if (needed.length > 0) select.value = valueOf(needed[0]);
      else if (!$("manual").hidden) closeSheet("manual");
      state.manualLast = null;
    }
  }
  const known = new Set([...(view.table.board || []),
    ...(view.seats || []).flatMap((seat) => seat.cards || [])].filter(isCardCode));
  for (const button of $("picker").children) {
    const code = button.dataset.card;
    button.disabled = known.has(code) || isBusy();
    toggle(button, "picked", state.manual.includes(code));
  }
  setText($("manual-picked"), state.manual.join(" "));
  $("btn-manual-send").disabled = isBusy() || state.manual.length === 0;
  const cards = $("btn-cards");
  toggle(cards, "needed", needed.length > 0);
  const first = needed[0];
  setText(cards, first ? `Cards · ${first.target === "board" ? "board" : `seat ${first.seat}`}`
    : "Cards");
}

function openManual() {
  $("manual").hidden = false;
  renderManual();
}

/** A typed card: rank then suit ("a", "h" is Ah); toggles it like a tap. */
function typeCard(key) {
  const rank = key.toUpperCase();
  if (state.rankTyped && SUITS.includes(key.toLowerCase())) {
    const code = `${state.rankTyped}${key.toLowerCase()}`;
    state.rankTyped = null;
    const button = $("picker").querySelector(`.pick[data-card="${code}"]`);
    if (button && !button.disabled) button.click();
    return true;
  }
  if (RANKS.includes(rank === "1" ? "T" : rank)) {
    state.rankTyped = rank === "1" ? "T" : rank;
    return true;
  }
  return false;
}

function sendManual() {
  const target = $("manual-target").value;
  const cards = [...state.manual];
  const done = (reply) => {
    if (reply && reply.ok) {
      state.manual = [];
      state.manualLast = target;
      renderManual();
    }
  };
  if (target === "board") sendCommand("deal_board", { cards }).then(done);
  else sendCommand("deal_cards", { seat: Number(target.split(":")[1]), cards }).then(done);
}

// ---------------------------------------------------------------- status and health

function renderStatus(view) {
  const table = view.table;
  setText($("hand-number"), table.hand_number ? `Hand ${table.hand_number}` : "No hand");
  setText($("street"), STREET_LABELS[table.street] || "Between hands");
  const level = table.level;
  setText($("blinds"), level ? `L${level.number} · ${chips(level.small_blind)}/`
    + `${chips(level.big_blind)}${level.ante ? ` · ante ${chips(level.ante)}` : ""}` : "");
  $("level-down").disabled = isBusy() || !level || level.number <= 1;
  $("level-up").disabled = isBusy() || !level;
  const op = view.operator || {};
  const health = [];
  for (const source of op.capture || []) {
    health.push(el("span", { class: `chip health-${source.status}`,
      text: `${source.source}: ${source.status}${source.detail ? ` (${source.detail})` : ""}` }));
  }
  if (op.obs) {
    health.push(el("span", { class: `chip health-${op.obs.ok ? "ok" : "fault"}`,
      text: `OBS: ${op.obs.connected ? op.obs.message || "connected" : "not connected"}` }));
  }
  $("health").replaceChildren(...health);
  $("channels").replaceChildren(...(op.channels || []).map((channel) => el("span",
    { class: "chip channel", data: { channel: channel.name },
      text: `${channel.name} ${channel.delay ? `${Math.round(channel.delay)} s` : "live"}`
        + ` · ${channel.clients}` })));
  $("pages").replaceChildren(...(op.pages || []).map((page) => el("span",
    { class: `chip ${page.current ? "health-ok" : "health-silent"}`,
      text: `${page.page} on ${page.channel}${page.current ? "" : " (old version: reload)"}` })),
    ...(op.refused_pages || []).map((page) => el("span", { class: "chip health-fault refused",
      data: { page: page.page, channel: page.channel },
      text: `${page.page} on ${page.channel} refused (${page.peer}): ${page.reason}` })));
  $("alerts").replaceChildren(...(view.alerts || []).map((alert) => el("li",
    { class: `alert alert-${alert.level}`, text: `${alert.source}: ${alert.message}` })));
}

function renderClock() {
  const view = state.view;
  const clock = view && view.operator ? view.operator.clock : null;
  const running = clock && clock.remaining !== null && clock.remaining !== undefined
    && (clock.phase === "minute" || clock.phase === "countdown");
  const node = $("clock");
  if (running) {
    // The R12 clock as every page counts it: the tournament's action_clock on server time.
    const tournament = tournamentOf(view);
    const left = state.channel ? actionClockRemaining(tournament && tournament.action_clock,
      wallNow(state.channel)) : null;
    const seat = (view.seats || []).find((s) => s.seat === clock.seat);
    setText(node, `${clockText(left === null ? clock.remaining : left)}`
      + `${seat ? ` · ${seat.name}` : ""}`);
  } else {
    setText(node, clock && clock.phase === "expired" ? "expired" : "—");
  }
  node.dataset.phase = clock ? clock.phase : "idle";
  $("btn-clock").disabled = isBusy() || !(view && view.operator && view.operator.legal)
    || running;
  $("btn-stop-clock").disabled = isBusy() || !running;
}

// ---------------------------------------------------------------- the broadcast

/** Hide graphics, tag the hand, the demo's automatic operator (docs/pages.md). */
function renderProduction(op, view, busy) {
  const hidden = Boolean(view.graphics && view.graphics.hidden);
  const graphics = $("btn-graphics");
  setText(graphics, hidden ? "Show graphics" : "Hide graphics");
  graphics.setAttribute("aria-pressed", String(hidden));
  toggle(graphics, "off-air", hidden);
  graphics.disabled = busy;
  const tags = op.tags || [];
  const number = view.table.hand_number;
  const tag = $("btn-tag");
  setText(tag, tags.length ? `Tagged (${tags.length})` : "Tag hand");
  tag.disabled = busy || !number;
  setText($("tag-title"), number ? `Tag hand ${number}` : "No hand to tag yet");
  $("btn-tag-save").disabled = busy || !number;
  $("tag-list").replaceChildren(...tags.map((note) => el("li",
    { text: note || "(tagged without a note)" })));
  const auto = $("btn-auto");
  auto.hidden = op.auto_operator === null || op.auto_operator === undefined;
  setText(auto, op.auto_operator === "paused" ? "Resume demo" : "Pause demo");
  auto.setAttribute("aria-pressed", String(op.auto_operator === "paused"));
  auto.disabled = busy;
}

function wireProduction() {
  $("btn-graphics").addEventListener("click", () => {
    const hidden = Boolean(state.view.graphics && state.view.graphics.hidden);
    sendCommand(hidden ? "show_graphics" : "hide_graphics");
  });
  $("btn-tag").addEventListener("click", () => {
    $("tag-sheet").hidden = false;
    $("tag-note").focus();
  });
  $("btn-tag-close").addEventListener("click", () => closeSheet("tag-sheet"));
  $("tag-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const note = $("tag-note");
    sendCommand("tag_hand", { note: note.value, hand: state.view.table.hand_number })
      .then((reply) => {
        if (reply && reply.ok) note.value = "";
      });
  });
  $("btn-auto").addEventListener("click", () => {
    const paused = state.view.operator.auto_operator === "paused";
    sendCommand(paused ? "resume_auto_operator" : "pause_auto_operator");
  });
}

// ---------------------------------------------------------------- render

/** The one render function: first paint and every update. */
export function render(view) {
  state.view = view;
  document.body.classList.toggle("busy", isBusy());
  const op = view.operator || {};
  const legal = op.legal || null;
  renderStatus(view);
  const editable = Boolean(op.between_hands);
  seatRows.sync(view.seats || [], (seat) => seat.seat,
    (row, seat) => updateSeatRow(row, seat, editable));
  toggle($("seats"), "editing", editable);

  setText($("to-act-name"), legal ? `Seat ${legal.seat} · ${legal.name}` : "nobody");
  const busy = isBusy();
  const inFront = betInFront(view, legal);
  $("btn-fold").disabled = busy || !legal || !legal.fold;
  $("btn-check").disabled = busy || !legal || !legal.check;
  const call = $("btn-call");
  const canCall = Boolean(legal) && legal.call !== null && legal.call !== undefined;
  call.disabled = busy || !canCall;
  // Amounts are street totals ("to"), the chips added beside, for the call and the all-in
  // alike.
  labelAmount(call, "Call", canCall && legal.call ? inFront + legal.call : null,
    canCall && legal.call ? legal.call : null);
  const allIn = $("btn-all-in");
  allIn.disabled = busy || !legal || !legal.all_in;
  labelAmount(allIn, "All-in", legal && legal.all_in ? legal.all_in : null,
    legal && legal.all_in ? legal.all_in - inFront : null);
  const mode = amountMode(legal);
  if (mode) keypad.setLimits(mode.min, mode.max); else keypad.setLimits(null, null);

  const undo = op.undo || { available: false };
  $("btn-undo").disabled = busy || !undo.available;
  setText($("undo-label"), undo.available && undo.label ? `Undo: ${undo.label}` : "");
  $("btn-next-hand").disabled = busy || !op.between_hands;
  $("btn-misdeal").disabled = busy || Boolean(op.between_hands);
  renderProduction(op, view, busy);
  renderSeatSheet();
  renderClock();
  renderManual();
  renderDecks(op, state.busy, sendCommand);
  renderTournament(view, state.busy);
  renderDevices(state.busy);
  renderGraphics(state.busy, view);
}

// ---------------------------------------------------------------- wiring

/** The keyboard of a laptop operator (listed on the page under "Keys"). */
const KEYS = [
  ["F", "fold"], ["K", "check"], ["C", "call"], ["A", "all-in"],
  ["0-9, Backspace", "type an amount (Esc clears it)"],
  ["Shift+1 … Shift+8", "the bet sizes, left to right"],
  ["Enter", "bet or raise the amount shown (in a question: yes)"],
  ["U", "undo"], ["M", "misdeal (asks first)"], ["N", "next hand"],
  ["D", "cards: the 52-card picker (rank then suit, Enter enters, Esc closes)"],
  ["L", "call the clock (R12)"], ["G", "hide or show the graphics on air"],
  ["T", "tag the hand (a note for the editors)"], ["P", "pause or resume the demo's player"],
  ["?", "this list"], ["Esc", "close a sheet, cancel a question"],
];

function clickIfEnabled(id) {
  const button = $(id);
  if (!button.disabled && !button.hidden) button.click();
}

function onKey(event) {
  if ($("console").hidden || event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  const sheet = openSheet();
  if (event.key === "Escape" && sheet) {
    event.preventDefault();
    closeSheet(sheet);
    return;
  }
  if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement
      || target instanceof HTMLTextAreaElement) return;
  if (sheet === "confirm") {
    if (event.key === "Enter") { event.preventDefault(); $("btn-confirm-yes").click(); }
    return;
  }
  if (sheet === "manual") {
    if (event.key === "Enter") {
      event.preventDefault();
      clickIfEnabled("btn-manual-send");
    } else if (event.key === "Backspace") {
      event.preventDefault();
      state.manual.pop();
      renderManual();
    } else if (event.key.length === 1 && typeCard(event.key)) {
      event.preventDefault();
    }
    return;
  }
  if (sheet) return; // the seat sheet and the key list keep their own keys
  // The tournament and devices panels' buttons keep their own Enter (never a raise).
  if (target instanceof Element && target.closest("#tournament, #devices, #decks, #graphics")) return;
  const legal = state.view && state.view.operator && state.view.operator.legal;
  const digit = /^Digit([1-8])$/.exec(event.code);
  if (event.shiftKey && digit) {
    const preset = $("presets").children[Number(digit[1]) - 1];
    if (preset && !preset.disabled) { event.preventDefault(); preset.click(); }
    return;
  }
  const key = /^\d$/.test(event.key) ? event.key
    : { Backspace: "back", Escape: "clear" }[event.key];
  if (key && amountMode(legal)) {
    event.preventDefault();
    keypad.press(key);
    return;
  }
  if (event.key === "Enter") {
    // A focused button answers Enter itself.
    if (target instanceof HTMLButtonElement) return;
    if (!$("btn-amount").disabled) { event.preventDefault(); $("btn-amount").click(); }
    return;
  }
  if (event.key === "?") {
    event.preventDefault();
    $("keys-help").hidden = false;
    return;
  }
  const button = { f: "btn-fold", k: "btn-check", c: "btn-call", a: "btn-all-in",
    u: "btn-undo", m: "btn-misdeal", n: "btn-next-hand", d: "btn-cards",
    l: "btn-clock", g: "btn-graphics", t: "btn-tag", p: "btn-auto" }[event.key.toLowerCase()];
  if (button && !event.shiftKey) {
    event.preventDefault();
    clickIfEnabled(button);
  }
}

function wire() {
  const seatOf = () => state.view.operator.legal.seat;
  $("btn-fold").addEventListener("click", () => sendCommand("fold", { seat: seatOf() }));
  $("btn-check").addEventListener("click", () => sendCommand("check", { seat: seatOf() }));
  $("btn-call").addEventListener("click", () => sendCommand("call", { seat: seatOf() }));
  $("btn-all-in").addEventListener("click", () => sendCommand("all_in", { seat: seatOf() }));
  for (const key of document.querySelectorAll("#keypad .key[data-key]")) {
    key.addEventListener("click", () => keypad.press(key.dataset.key));
  }
  $("btn-amount").addEventListener("click", () => {
    const mode = amountMode(state.view.operator.legal);
    if (!mode || keypad.amount <= 0) return;
    sendCommand(mode.type, { seat: seatOf(), amount: keypad.amount }).then((reply) => {
      if (reply && reply.ok) keypad.press("clear");
    });
  });
  $("btn-undo").addEventListener("click", () => sendCommand("undo"));
  $("btn-next-hand").addEventListener("click", () => sendCommand("next_hand"));
  $("btn-misdeal").addEventListener("click", () => {
    const table = state.view.table;
    confirmThen(`Misdeal: void hand ${table.hand_number || ""}? Stacks go back to where they `
      + "were; the button does not move (R13).", "Yes, void the hand",
    () => sendCommand("misdeal"));
  });
  $("btn-cards").addEventListener("click", openManual);
  $("btn-clock").addEventListener("click", () => sendCommand("call_clock", { seat: seatOf() }));
  $("btn-stop-clock").addEventListener("click", () => sendCommand("stop_clock"));
  // R21: the engine starts a new level with the next hand, never mid-hand.
  const changeLevel = (step) => {
    const level = state.view.table.level;
    const number = level.number + step;
    confirmThen(`Change the blind level from ${level.number} to ${number}? It applies from the `
      + "next hand (R21); a running tournament clock moves to the start of that level.",
    `Yes, level ${number}`, () => sendCommand("set_level", { level: number }));
  };
  $("level-down").addEventListener("click", () => changeLevel(-1));
  $("level-up").addEventListener("click", () => changeLevel(1));
  $("dismiss-error").addEventListener("click", clearError);
  $("apply-ruling").addEventListener("click", () => {
    if (!state.ruling) return;
    const { type, ...fields } = state.ruling;
    sendCommand(type, fields);
  });
  $("btn-manual-clear").addEventListener("click", () => { state.manual = []; renderManual(); });
  $("btn-manual-send").addEventListener("click", sendManual);
  $("btn-manual-close").addEventListener("click", () => closeSheet("manual"));
  wireProduction();
  $("btn-keys").addEventListener("click", () => { $("keys-help").hidden = false; });
  $("btn-keys-close").addEventListener("click", () => closeSheet("keys-help"));
  $("keys-list").replaceChildren(...KEYS.flatMap(([keys, what]) => [
    el("dt", { text: keys }), el("dd", { text: what })]));
  // A keyboard works too (a laptop in the truck): see KEYS.
  document.addEventListener("keydown", onKey);
  buildPicker();
  wireSeatSheet();
  wireDecks(sendCommand);
  wireTournament({ send: sendCommand, upload: sendUpload, channel: () => state.channel });
  wireDevices(sendRequest);
  wireGraphics(sendRequest);
  setInterval(() => { renderClock(); tickTournamentClock(); }, 250);
}

function showConnection(status) {
  const node = $("connection");
  node.dataset.status = status;
  setText(node, { connecting: "connecting…", live: "live", resyncing: "resyncing…",
    offline: "server unreachable" }[status] || status);
}

/** Ask the server whether it takes the token (a refused websocket upgrade gives the page no
 * reason); a 401/403 brings the token form back with the server's message. */
async function checkToken(token) {
  try {
    const response = await fetch("/api/log?limit=0", {
      headers: { Authorization: `Bearer ${token}` } });
    if (response.status !== 401 && response.status !== 403) return;
    const reply = await response.json().catch(() => ({}));
    if (state.channel) state.channel.stop();
    sessionStorage.removeItem(TOKEN_KEY);
    showLogin(reply.error && reply.error.message ? reply.error.message
      : "The operator token was refused");
  } catch (error) {
    // The server is unreachable: the channel's status says so and it keeps retrying.
  }
}

function startConsole(token, channelName) {
  state.token = token;
  $("login").hidden = true;
  $("console").hidden = false;
  checkToken(token);
  const channel = new Channel({ channel: channelName, page: "operator", token });
  state.channel = channel;
  channel.subscribe(render);
  channel.onStatus(showConnection);
  channel.onError((error) => {
    if (error && (error.code === "unauthorized" || error.code === "forbidden")) {
      // The channel refused the token: stop retrying with it and ask for it again.
      channel.stop();
      sessionStorage.removeItem(TOKEN_KEY);
      showLogin(error.message || "The operator token was refused");
      return;
    }
    showError(error || {});
  });
  channel.start();
  window.feltcast = { channel, render, sendCommand, sendUpload, sendRequest };
}

function showLogin(message = "") {
  $("console").hidden = true;
  $("login").hidden = false;
  setText($("login-message"), message);
  $("token-input").focus();
}

function main() {
  loadFonts();
  const params = pageParams({ channel: "operator" });
  wire();
  renderKeypad();
  if (params.token) {
    // A token in the URL is taken once, kept for this tab and removed from the address bar.
    sessionStorage.setItem(TOKEN_KEY, params.token);
    const url = new URL(location.href);
    url.searchParams.delete("token");
    history.replaceState(null, "", url);
  }
  const token = sessionStorage.getItem(TOKEN_KEY);
  $("login").addEventListener("submit", (event) => {
    event.preventDefault();
    const entered = $("token-input").value.trim();
    if (!entered) return;
    sessionStorage.setItem(TOKEN_KEY, entered);
    if (window.feltcast && window.feltcast.channel) {
      location.reload(); // a refused token: start clean with the new one
      return;
    }
    startConsole(entered, params.channel);
  });
  if (token) startConsole(token, params.channel); else showLogin();
}

main();
