// The operator console: touch-first action tracker for a tablet. It reads the operator channel
// (docs/view-model.md, "The operator object") and sends typed, acknowledged commands
// (docs/commands.md). It never decides what is legal: buttons follow operator.legal and every
// rejection shows the server's own message.
import { Channel, pageParams } from "./js/channel.js";
import { cardElement, isCardCode } from "./js/cards.js";
import { renderDecks, wireDecks } from "./js/decks.js";
import { renderDevices, wireDevices } from "./js/devices.js";
import { Keypad } from "./js/keypad.js";
import { renderTournament, tickTournamentClock, wireTournament }
  from "./js/operator-tournament.js";
import { KeyedList, chips, clockText, el, loadFonts, setText, toggle } from "./js/dom.js";

const TOKEN_KEY = "feltcast.operator.token";
const STREET_LABELS = { preflop: "Pre-flop", flop: "Flop", turn: "Turn", river: "River",
  showdown: "Showdown", over: "Hand over" };
const RANKS = ["A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3", "2"];
const SUITS = ["s", "h", "d", "c"];

const $ = (id) => document.getElementById(id);
const state = { view: null, receivedAt: 0, busy: false, token: null, ruling: null,
  manual: [], misdealArmed: null, channel: null };

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
  document.body.classList.toggle("busy", busy);
  if (state.view) render(state.view);
}

/** POST one command; resolves to the reply (ok or error), never throws. */
export async function sendCommand(type, fields = {}) {
  const command = { id: commandId(), type, ...fields };
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

function renderKeypad() {
  const legal = state.view && state.view.operator ? state.view.operator.legal : null;
  const mode = amountMode(legal);
  setText($("amount"), chips(keypad.value));
  setText($("amount-label"), mode ? mode.label : "Bet / raise");
  setText($("amount-min"), mode ? `min ${chips(mode.min)}` : "");
  setText($("amount-max"), mode ? `max ${chips(mode.max)}` : "");
  toggle($("amount"), "clamped", keypad.clamped);
  toggle($("keypad"), "below-min", keypad.belowMin);
  setText($("ruling"), keypad.belowMin && legal ? legal.ruling : keypad.clamped
    ? `Capped at the maximum, ${chips(keypad.max)} (all-in)` : "");
  const submit = $("btn-amount");
  submit.disabled = state.busy || !mode || keypad.value <= 0;
  setText(submit, mode && keypad.value > 0 ? `${mode.label} ${chips(keypad.value)}`
    : mode ? mode.label : "Bet / raise");
  for (const key of document.querySelectorAll("#keypad .key[data-key]")) {
    key.disabled = !mode;
  }
}

// ---------------------------------------------------------------- seats

function createSeatRow() {
  const name = el("input", { class: "edit-name", attrs: { type: "text", autocomplete: "off",
    "aria-label": "name" } });
  const stack = el("input", { class: "edit-stack", attrs: { type: "text", inputmode: "numeric",
    autocomplete: "off", "aria-label": "stack" } });
  for (const input of [name, stack]) {
    input.addEventListener("input", () => { input.dataset.dirty = "1"; });
  }
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
      el("button", { class: "btn tool restrict", text: "Exposed card (R10)",
        attrs: { type: "button" } }),
      el("button", { class: "btn tool away", attrs: { type: "button" } })),
    el("div", { class: "editor" }, name, stack,
      el("button", { class: "btn save", text: "Save", attrs: { type: "button" } }),
      el("button", { class: "btn ghost button-here", text: "Button here",
        attrs: { type: "button" } }),
      el("button", { class: "btn ghost empty", text: "Empty", attrs: { type: "button" } })));
  const seatNumber = () => Number(row.dataset.seat);
  row.querySelector(".show").addEventListener("click",
    () => sendCommand("show_hand", { seat: seatNumber() }));
  row.querySelector(".muck").addEventListener("click",
    () => sendCommand("muck_hand", { seat: seatNumber() }));
  row.querySelector(".restrict").addEventListener("click",
    () => sendCommand("restrict", { seat: seatNumber() }));
  row.querySelector(".away").addEventListener("click",
    () => sendCommand("set_absent", { seat: seatNumber(), absent: row.dataset.away !== "1" }));
  row.querySelector(".button-here").addEventListener("click",
    () => sendCommand("set_button", { seat: seatNumber() }));
  row.querySelector(".save").addEventListener("click", () => {
    const seat = Number(row.dataset.seat);
    const digits = stack.value.replace(/[,\s_.]/g, "");
    sendCommand("set_seat", { seat, name: name.value.trim(),
      stack: /^\d+$/.test(digits) ? Number(digits) : digits }).then((reply) => {
      if (reply && reply.ok) { delete name.dataset.dirty; delete stack.dataset.dirty; }
    });
  });
  row.querySelector(".empty").addEventListener("click", () => {
    sendCommand("empty_seat", { seat: Number(row.dataset.seat) });
  });
  return row;
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
  const name = q(".edit-name");
  const stack = q(".edit-stack");
  if (!name.dataset.dirty && document.activeElement !== name) name.value = seat.name || "";
  if (!stack.dataset.dirty && document.activeElement !== stack) {
    stack.value = seat.name === null ? "" : String(seat.stack);
  }
  for (const node of row.querySelectorAll(".editor input, .editor button")) {
    node.disabled = !editable || state.busy;
  }
  // Per-seat tools: show or muck at the end of a hand, R10 during it, R11 any time.
  const street = state.view && state.view.table ? state.view.table.street : null;
  const inHand = !editable && Boolean(street) && street !== "over";
  const live = seat.name !== null && !seat.folded && (seat.cards || []).length > 0;
  row.dataset.away = seat.sitting_out ? "1" : "";
  setText(q(".away"), seat.sitting_out ? "Back (R11)" : "Away (R11)");
  q(".away").hidden = seat.name === null;
  q(".show").hidden = !(inHand && live && (street === "river" || street === "showdown"));
  q(".muck").hidden = q(".show").hidden;
  q(".restrict").hidden = !(inHand && live);
  toggle(q(".tools"), "empty", seat.name === null);
  for (const node of row.querySelectorAll(".tools button")) node.disabled = state.busy;
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
  const select = $("manual-target");
  const targets = manualTargets(view);
  const signature = targets.map((t) => `${t.value}=${t.text}`).join("|");
  if (select.dataset.signature !== signature) {
    const current = select.value;
    select.dataset.signature = signature;
    select.replaceChildren(...targets.map((t) => el("option", { text: t.text,
      attrs: { value: t.value } })));
    if (targets.some((t) => t.value === current)) select.value = current;
  }
  const known = new Set([...(view.table.board || []),
    ...(view.seats || []).flatMap((seat) => seat.cards || [])].filter(isCardCode));
  for (const button of $("picker").children) {
    const code = button.dataset.card;
    button.disabled = known.has(code) || state.busy;
    toggle(button, "picked", state.manual.includes(code));
  }
  setText($("manual-picked"), state.manual.join(" "));
  $("btn-manual-send").disabled = state.busy || state.manual.length === 0;
  toggle($("manual"), "needed", ((view.operator && view.operator.cards_needed) || []).length > 0);
}

function sendManual() {
  const target = $("manual-target").value;
  const cards = [...state.manual];
  const done = (reply) => { if (reply && reply.ok) { state.manual = []; renderManual(); } };
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
  $("level-down").disabled = state.busy || !level || level.number <= 1;
  $("level-up").disabled = state.busy || !level;
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
      text: `${page.page} on ${page.channel}${page.current ? "" : " (old version: reload)"}` })));
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
    // remaining is counted at the view's as_of; the channel knows how far "now" is past it.
    const asOf = view.channel && typeof view.channel.as_of === "number" ? view.channel.as_of
      : null;
    const elapsed = asOf === null || !state.channel ? (Date.now() - state.receivedAt) / 1000
      : state.channel.viewNow() - asOf;
    const seat = (view.seats || []).find((s) => s.seat === clock.seat);
    setText(node, `${clockText(clock.remaining - elapsed)}${seat ? ` · ${seat.name}` : ""}`);
  } else {
    setText(node, clock && clock.phase === "expired" ? "expired" : "—");
  }
  node.dataset.phase = clock ? clock.phase : "idle";
  $("btn-clock").disabled = state.busy || !(view && view.operator && view.operator.legal)
    || running;
  $("btn-stop-clock").disabled = state.busy || !running;
}

// ---------------------------------------------------------------- render

/** The one render function: first paint and every update. */
export function render(view, meta = {}) {
  state.view = view;
  if (meta.receivedAt) state.receivedAt = meta.receivedAt;
  const op = view.operator || {};
  const legal = op.legal || null;
  renderStatus(view);
  const editable = Boolean(op.between_hands);
  seatRows.sync(view.seats || [], (seat) => seat.seat,
    (row, seat) => updateSeatRow(row, seat, editable));
  toggle($("seats"), "editing", editable);

  setText($("to-act-name"), legal ? `Seat ${legal.seat} · ${legal.name}` : "nobody");
  const busy = state.busy;
  $("btn-fold").disabled = busy || !legal || !legal.fold;
  $("btn-check").disabled = busy || !legal || !legal.check;
  const call = $("btn-call");
  call.disabled = busy || !legal || legal.call === null || legal.call === undefined;
  setText(call, legal && legal.call ? `Call ${chips(legal.call)}` : "Call");
  const allIn = $("btn-all-in");
  allIn.disabled = busy || !legal || !legal.all_in;
  setText(allIn, legal && legal.all_in ? `All-in ${chips(legal.all_in)}` : "All-in");
  const mode = amountMode(legal);
  if (mode) keypad.setLimits(mode.min, mode.max); else keypad.setLimits(null, null);

  const undo = op.undo || { available: false };
  $("btn-undo").disabled = busy || !undo.available;
  setText($("undo-label"), undo.available && undo.label ? `Undo: ${undo.label}` : "");
  $("btn-next-hand").disabled = busy || !op.between_hands;
  $("btn-misdeal").disabled = busy || Boolean(op.between_hands);
  renderClock();
  renderManual();
  renderDecks(op, busy, sendCommand);
  renderTournament(view, busy);
  renderDevices(busy);
}

// ---------------------------------------------------------------- wiring

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
    if (!mode || keypad.value <= 0) return;
    sendCommand(mode.type, { seat: seatOf(), amount: keypad.value }).then((reply) => {
      if (reply && reply.ok) keypad.press("clear");
    });
  });
  $("btn-undo").addEventListener("click", () => sendCommand("undo"));
  $("btn-next-hand").addEventListener("click", () => sendCommand("next_hand"));
  const misdeal = $("btn-misdeal");
  misdeal.addEventListener("click", () => {
    if (!state.misdealArmed) {
      // Two taps: a misdeal voids the hand (R13); one stray touch must not.
      misdeal.classList.add("armed");
      setText(misdeal, "Tap again: void the hand");
      state.misdealArmed = setTimeout(() => {
        state.misdealArmed = null;
        misdeal.classList.remove("armed");
        setText(misdeal, "Misdeal");
      }, 4000);
      return;
    }
    clearTimeout(state.misdealArmed);
    state.misdealArmed = null;
    misdeal.classList.remove("armed");
    setText(misdeal, "Misdeal");
    sendCommand("misdeal");
  });
  $("btn-clock").addEventListener("click", () => sendCommand("call_clock", { seat: seatOf() }));
  $("btn-stop-clock").addEventListener("click", () => sendCommand("stop_clock"));
  const level = () => state.view.table.level.number;
  // R21: the engine starts a new level with the next hand, never mid-hand.
  $("level-down").addEventListener("click", () => sendCommand("set_level", { level: level() - 1 }));
  $("level-up").addEventListener("click", () => sendCommand("set_level", { level: level() + 1 }));
  $("dismiss-error").addEventListener("click", clearError);
  $("apply-ruling").addEventListener("click", () => {
    if (!state.ruling) return;
    const { type, ...fields } = state.ruling;
    sendCommand(type, fields);
  });
  $("btn-manual-clear").addEventListener("click", () => { state.manual = []; renderManual(); });
  $("btn-manual-send").addEventListener("click", sendManual);
  // A keyboard works too (a laptop at the table): digits, Backspace, Escape, Enter.
  document.addEventListener("keydown", (event) => {
    const target = event.target;
    if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement) return;
    // The tournament and devices panels' buttons keep their own Enter (never a raise).
    if (target instanceof Element && target.closest("#tournament, #devices")) return;
    if ($("console").hidden || event.ctrlKey || event.metaKey || event.altKey) return;
    const key = /^\d$/.test(event.key) ? event.key
      : { Backspace: "back", Escape: "clear" }[event.key];
    if (key && amountMode(state.view && state.view.operator && state.view.operator.legal)) {
      event.preventDefault();
      keypad.press(key);
    } else if (event.key === "Enter" && !$("btn-amount").disabled) {
      event.preventDefault();
      $("btn-amount").click();
    }
  });
  buildPicker();
  wireDecks(sendCommand);
  wireTournament({ send: sendCommand, upload: sendUpload, channel: () => state.channel });
  wireDevices(sendRequest);
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
