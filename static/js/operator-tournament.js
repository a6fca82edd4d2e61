// The operator console's Tournament panel (issue 10): the level clock (R21) with start, pause,
// resume and adjust; per player, between hands: stack correction, disqualification (R23),
// identity (name, display name, country with its flag, photo upload); the players CSV import.
// Every action is a typed, acknowledged command through the console's one command path
// (docs/commands.md, "Tournament"); every refusal is shown, in the panel and in the banner.
import { el, setText, toggle } from "./dom.js";
import { blindsText, chips, clockText, levelClock, syncFlag, syncPhoto, tournamentOf }
  from "./tournament.js";

const $ = (id) => document.getElementById(id);

/** What the photo upload takes (docs/commands.md, "Photos and CSV import"). */
export const PHOTO_TYPES = ["image/jpeg", "image/png", "image/webp"];
const MIB = 1024 * 1024;
export const MAX_PHOTO_BYTES = 4 * MIB;
const MAX_CSV_BYTES = 256 * 1024;
const ADJUST_LIMIT = 24 * 3600;
// Disqualifying is for good: the first submit arms the button, the second (within a few
// seconds, same seat) sends.
const ARM_MS = 6000;

const panel = { send: null, upload: null, channel: () => null, view: null,
  armed: null, seat: null };

/**
 * A typed clock adjustment in seconds: "+2" or "-5" (minutes), "1:30" / "-0:45" (m:ss), "90s"
 * (seconds), "2m". Null for anything else.
 */
export function parseAdjust(text) {
  const raw = String(text || "").trim().replace(/\u2212/g, "-").replace(/\s+/g, "");
  const match = /^([+-]?)(?:(\d+):([0-5]\d)|(\d+(?:\.\d+)?)(m|min|s|sec)?)$/i.exec(raw);
  if (!match) return null;
  const sign = match[1] === "-" ? -1 : 1;
  let seconds;
  if (match[2] !== undefined) seconds = Number(match[2]) * 60 + Number(match[3]);
  else if (match[5] && match[5].toLowerCase().startsWith("s")) seconds = Number(match[4]);
  else seconds = Number(match[4]) * 60;
  return sign * Math.round(seconds);
}

/** "400,000" / "400 000" / "400000" → 400000; anything else → null. */
export function parseChips(text) {
  const digits = String(text || "").replace(/[,\s_.']/g, "");
  return /^\d+$/.test(digits) ? Number(digits) : null;
}

/** The CSV import's one message ("the CSV has problems: line 3: …; line 6: …") as lines. */
export function problemLines(message) {
  const text = String(message || "");
  const body = text.replace(/^the CSV has problems:\s*/i, "");
  if (body === text) return [text];
  return body.split(/;\s*(?=line \d+:)/).map((line) => line.trim()).filter(Boolean);
}

function feedback(text, ok) {
  const node = $("t-feedback");
  setText(node, text);
  toggle(node, "ok", ok);
  toggle(node, "bad", !ok && Boolean(text));
}

/** Send one command; on success say `done`, else show the server's message in the panel. */
async function send(type, fields, done) {
  const reply = await panel.send(type, fields);
  if (reply === null) return null; // another command is in flight: nothing was sent
  if (reply && reply.ok) feedback(done, true);
  else feedback(reply && reply.error ? reply.error.message : "The command was refused", false);
  return reply;
}

function selectedSeat() {
  const value = Number($("t-seat").value);
  return Number.isInteger(value) && value > 0 ? value : null;
}

function seatName(seat) {
  const view = panel.view;
  const found = view && (view.seats || []).find((s) => s.seat === seat);
  return found && found.name ? found.name : `seat ${seat}`;
}

function playerOf(seat) {
  const tournament = tournamentOf(panel.view);
  return tournament && Array.isArray(tournament.players)
    ? tournament.players.find((p) => p.seat === seat) || null : null;
}

// ---------------------------------------------------------------- clock

function clockState(clock) {
  if (!clock) return "";
  if (!clock.started) return "Not started";
  if (!clock.running) return "Paused";
  return clock.is_break ? "Break" : "Running";
}

/** Redraw the level clock (several times a second: it counts down locally). */
export function tickTournamentClock() {
  const tournament = tournamentOf(panel.view);
  const clock = tournament ? tournament.clock : null;
  const channel = panel.channel();
  if (!clock || !channel) {
    setText($("t-time"), "—");
    return;
  }
  const level = levelClock(panel.view, channel, { unstarted: true });
  const left = level ? level.remaining : null;
  setText($("t-time"), left === null ? "last level" : clockText(left));
  toggle($("t-time"), "last-minute", left !== null && left <= 60 && clock.running);
}

function renderClockPanel(tournament, busy) {
  const clock = tournament ? tournament.clock : null;
  const started = Boolean(clock && clock.started);
  const running = Boolean(clock && clock.running);
  setText($("t-name"), tournament && tournament.name ? tournament.name : "");
  setText($("t-level"), clock ? (clock.is_break ? clock.name || "Break"
    : `Level ${clock.level}`) : "");
  setText($("t-blinds"), clock ? `${clock.is_break ? "then " : ""}${blindsText(clock)}`
    + (clock.ante ? ` · ante ${chips(clock.ante)}` : "") : "");
  const state = $("t-state");
  setText(state, clockState(clock));
  state.dataset.state = !clock ? "" : !started ? "idle" : running ? "running" : "paused";
  const next = clock ? clock.next : null;
  setText($("t-next"), next ? `Next: level ${next.level}, ${blindsText(next)}`
    + (next.ante ? ` · ante ${chips(next.ante)}` : "") : "");
  $("btn-clock-start").disabled = busy || !clock || started;
  $("btn-clock-pause").disabled = busy || !running;
  $("btn-clock-resume").disabled = busy || !started || running;
  for (const id of ["btn-clock-minus", "btn-clock-plus", "btn-clock-adjust"]) {
    $(id).disabled = busy || !started;
  }
  tickTournamentClock();
}

function adjust(seconds) {
  if (seconds === null || seconds === 0 || Math.abs(seconds) > ADJUST_LIMIT) {
    feedback("Type the time to add or take away: +2 or -5 (minutes), 1:30 (m:ss) or 90s; "
      + "not 0, at most a day", false);
    return Promise.resolve(null);
  }
  const text = `${seconds > 0 ? "Added" : "Took away"} ${clockText(Math.abs(seconds))}`;
  return send("adjust_clock", { seconds }, text);
}

// ---------------------------------------------------------------- players

function syncSeats(view) {
  const select = $("t-seat");
  // Players in play: seated, and still in the tournament (a disqualified or busted player
  // has no chips left to correct and no identity to change).
  const tournament = tournamentOf(view);
  const inPlay = tournament && Array.isArray(tournament.players)
    ? new Set(tournament.players.map((p) => p.seat)) : null;
  const seated = (view.seats || []).filter((seat) => seat.name !== null
    && (inPlay === null || inPlay.has(seat.seat)));
  const options = seated.map((seat) => ({ value: String(seat.seat),
    text: `Seat ${seat.seat} · ${seat.name}` }));
  const signature = options.map((o) => `${o.value}=${o.text}`).join("|");
  if (select.dataset.signature !== signature) {
    const current = select.value;
    select.dataset.signature = signature;
    select.replaceChildren(...options.map((o) => el("option", { text: o.text,
      attrs: { value: o.value } })));
    if (options.some((o) => o.value === current)) select.value = current;
  }
}

const IDENTITY_INPUTS = ["id-name", "id-display", "id-country"];

/** Fill the identity form from the view, unless the operator is editing it. */
function fillIdentity(force) {
  const seat = selectedSeat();
  const player = seat === null ? null : playerOf(seat);
  const values = { "id-name": player ? player.name || "" : "",
    "id-display": player ? player.display_name || "" : "",
    "id-country": player ? player.country || "" : "" };
  for (const id of IDENTITY_INPUTS) {
    const input = $(id);
    if (force || (!input.dataset.dirty && document.activeElement !== input)) {
      input.value = values[id];
      delete input.dataset.dirty;
    }
  }
  syncFlag($("id-flag"), $("id-country").value.trim().toUpperCase());
  syncPhoto($("id-photo"), player ? player.photo : null,
    player ? player.name : seat === null ? "" : seatName(seat));
}

function renderPlayers(view, busy) {
  syncSeats(view);
  const seat = selectedSeat();
  if (seat !== panel.seat) {
    panel.seat = seat;
    disarm();
    fillIdentity(true);
    $("correct-stack").value = "";
  } else {
    fillIdentity(false);
  }
  const between = Boolean(view.operator && view.operator.between_hands);
  const hint = $("t-between");
  setText(hint, between ? "Between hands" : "A hand is running: corrections and "
    + "disqualifications wait until it is over");
  toggle(hint, "warn", !between);
  const player = seat === null ? null : playerOf(seat);
  setText($("t-stack"), player ? `Stack ${chips(player.stack)}` : "");
  // Inputs stay enabled while a command is in flight (disabling one would drop its focus);
  // buttons wait for the reply.
  for (const node of document.querySelectorAll("#t-players button, #t-players input")) {
    node.disabled = seat === null || (busy && node.tagName === "BUTTON");
  }
  $("btn-csv").disabled = busy;
}

function disarm() {
  if (panel.armed) clearTimeout(panel.armed.timer);
  panel.armed = null;
  const button = $("btn-dq");
  button.classList.remove("armed");
  setText(button, "Disqualify…");
  $("btn-dq-cancel").hidden = true;
}

async function correctStack(event) {
  event.preventDefault();
  const seat = selectedSeat();
  if (seat === null) return;
  const stack = parseChips($("correct-stack").value);
  const reason = $("correct-reason").value.trim();
  if (stack === null) {
    feedback("Type the corrected stack in chips, e.g. 400,000", false);
    $("correct-stack").focus();
    return;
  }
  if (!reason) {
    feedback("A stack correction needs a reason (it is kept in the log)", false);
    $("correct-reason").focus();
    return;
  }
  const reply = await send("correct_stack", { seat, stack, reason },
    `Stack of ${seatName(seat)} corrected to ${chips(stack)}`);
  if (reply && reply.ok) {
    $("correct-stack").value = "";
    $("correct-reason").value = "";
  }
}

async function disqualify(event) {
  event.preventDefault();
  const seat = selectedSeat();
  if (seat === null) return;
  const reason = $("dq-reason").value.trim();
  if (!reason) {
    feedback("A disqualification needs a reason (it is kept in the log)", false);
    $("dq-reason").focus();
    return;
  }
  const button = $("btn-dq");
  if (!panel.armed || panel.armed.seat !== seat) {
    disarm();
    panel.armed = { seat, timer: setTimeout(() => { disarm(); feedback("", true); }, ARM_MS) };
    button.classList.add("armed");
    setText(button, `Confirm: disqualify ${seatName(seat)}`);
    $("btn-dq-cancel").hidden = false;
    feedback(`Disqualify ${seatName(seat)} (seat ${seat})? The chips leave play and the prize `
      + "is forfeit (R23). Press again to confirm.", false);
    button.focus();
    return;
  }
  const name = seatName(seat);
  disarm();
  const reply = await send("disqualify", { seat, reason }, `${name} is disqualified`);
  if (reply && reply.ok) $("dq-reason").value = "";
}

async function saveIdentity(event) {
  event.preventDefault();
  const seat = selectedSeat();
  if (seat === null) return;
  const value = (id) => $(id).value.trim() || null;
  const country = value("id-country");
  const fields = { seat, name: value("id-name"), display_name: value("id-display"),
    country: country === null ? null : country.toUpperCase() };
  const reply = await send("set_player", fields, `Identity of seat ${seat} saved`);
  if (reply && reply.ok) {
    for (const id of IDENTITY_INPUTS) delete $(id).dataset.dirty;
  }
}

/** A photo's problem the server would refuse anyway, found before sending it; or null. */
export function photoProblem(file) {
  if (!file) return "Choose a photo file first";
  if (!PHOTO_TYPES.includes(file.type)) {
    return `${file.name} is ${file.type || "not an image"}: a photo must be a JPEG, PNG or `
      + "WebP image";
  }
  if (file.size > MAX_PHOTO_BYTES) {
    return `${file.name} is ${(file.size / MIB).toFixed(1)} MB; the limit is `
      + `${MAX_PHOTO_BYTES / MIB} MB`;
  }
  if (file.size === 0) return `${file.name} is empty`;
  return null;
}

async function uploadPhoto(event) {
  event.preventDefault();
  const seat = selectedSeat();
  if (seat === null) return;
  const input = $("photo-file");
  const file = input.files && input.files[0];
  const problem = photoProblem(file);
  if (problem) {
    feedback(problem, false);
    return;
  }
  const reply = await panel.upload(`/api/players/${seat}/photo`, file, file.type);
  if (reply === null) return;
  if (reply.ok) {
    feedback(`Photo of ${seatName(seat)} uploaded`, true);
    input.value = "";
  } else {
    feedback(reply.error ? reply.error.message : "The photo was refused", false);
  }
}

async function importCsv(event) {
  event.preventDefault();
  const list = $("csv-errors");
  list.replaceChildren();
  const input = $("csv-file");
  const file = input.files && input.files[0];
  if (!file) {
    feedback("Choose a players CSV file first", false);
    return;
  }
  if (file.size > MAX_CSV_BYTES) {
    feedback(`${file.name} is ${(file.size / 1024).toFixed(0)} KB; the limit is `
      + `${MAX_CSV_BYTES / 1024} KB`, false);
    return;
  }
  const reply = await panel.upload("/api/players/import", file, "text/csv");
  if (reply === null) return;
  if (reply.ok) {
    const seats = Array.isArray(reply.seats) ? reply.seats.join(", ") : "";
    feedback(`Imported ${reply.players} player${reply.players === 1 ? "" : "s"} from `
      + `${file.name} (seats ${seats})`, true);
    input.value = "";
    fillIdentity(true);
    return;
  }
  const message = reply.error ? reply.error.message : "The import was refused";
  const lines = problemLines(message);
  feedback(`Nothing was imported from ${file.name}: `
    + `${lines.length} problem${lines.length === 1 ? "" : "s"}`, false);
  list.replaceChildren(...lines.map((line) => el("li", { text: line })));
}

// ---------------------------------------------------------------- entry points

/**
 * Wire the panel once. `send(type, fields)` is the console's command path (resolves to the
 * reply, or null when another command is in flight); `upload(path, body, type)` posts raw
 * bytes with the same token, busy state and error banner; `channel()` the channel client.
 */
export function wireTournament({ send: sendCommand, upload, channel }) {
  panel.send = sendCommand;
  panel.upload = upload;
  panel.channel = channel;
  $("btn-clock-start").addEventListener("click",
    () => send("start_clock", {}, "Clock started"));
  $("btn-clock-pause").addEventListener("click",
    () => send("pause_clock", {}, "Clock paused"));
  $("btn-clock-resume").addEventListener("click",
    () => send("resume_clock", {}, "Clock running again"));
  $("btn-clock-minus").addEventListener("click", () => adjust(-60));
  $("btn-clock-plus").addEventListener("click", () => adjust(60));
  $("clock-adjust-form").addEventListener("submit", (event) => {
    event.preventDefault();
    adjust(parseAdjust($("clock-adjust").value)).then((reply) => {
      if (reply && reply.ok) $("clock-adjust").value = "";
    });
  });
  $("t-seat").addEventListener("change", () => {
    if (panel.view) renderPlayers(panel.view, false);
  });
  $("correct-form").addEventListener("submit", correctStack);
  $("dq-form").addEventListener("submit", disqualify);
  $("btn-dq-cancel").addEventListener("click", () => { disarm(); feedback("", true); });
  $("dq-form").addEventListener("keydown", (event) => {
    if (event.key === "Escape" && panel.armed) {
      event.preventDefault();
      disarm();
      feedback("", true);
    }
  });
  $("identity-form").addEventListener("submit", saveIdentity);
  for (const id of IDENTITY_INPUTS) {
    $(id).addEventListener("input", () => { $(id).dataset.dirty = "1"; });
  }
  $("id-country").addEventListener("input", () => {
    const input = $("id-country");
    input.value = input.value.toUpperCase();
    syncFlag($("id-flag"), input.value.trim());
  });
  $("photo-file").addEventListener("change", () => {
    const input = $("photo-file");
    const file = input.files && input.files[0];
    const problem = file ? photoProblem(file) : null;
    if (problem) feedback(problem, false);
    else if (file) feedback(`${file.name}: ${(file.size / 1024).toFixed(0)} KB, ready to upload`,
      true);
  });
  $("photo-form").addEventListener("submit", uploadPhoto);
  $("csv-form").addEventListener("submit", importCsv);
}

/** Part of the console's one render(view). */
export function renderTournament(view, busy) {
  panel.view = view;
  const tournament = tournamentOf(view);
  $("tournament").hidden = !tournament;
  if (!tournament) return;
  renderClockPanel(tournament, busy);
  renderPlayers(view, busy);
}
