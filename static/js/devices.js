// The operator console's Devices panel (issue 18): the named device tokens of /api/devices
// (docs/http-api.md; docs/show-day.md, "A token per device"). It lists each device (name, role,
// when it was made, live or revoked), makes one (its token shown once, with the page URLs that
// device opens with it) and revokes one with two taps. Every call goes through the console's
// one API path with the operator token (operator.js, sendRequest); a refusal is shown in the
// panel with the server's own message (a refused change in the banner too, as for a command).
// The panel starts closed; its list is read when it is opened, after each change and on
// Refresh (a device revoked from the CLI shows then).
import { KeyedList, el, setText, toggle } from "./dom.js";

const $ = (id) => document.getElementById(id);
// Revoking is for good: the first tap arms the button for a few seconds, the second sends.
const ARM_MS = 4000;
const COPIED_MS = 2000;
/** What a device of each role may do (overlay/auth.py, ROLE_GRANTS), beside its name. */
const ROLE_HINTS = {
  operator: "the console: every command",
  secure: "live channels with hole cards",
  obs: "OBS: hole cards only while its delay covers D",
  commentary: "the commentary booth",
};
/** The pages a device of each role opens with its token: [label, path, query]. */
const ROLE_PAGES = {
  operator: [["Operator console", "/operator", {}]],
  secure: [["Overlay on secure", "/overlay", { channel: "secure" }]],
  obs: [["OBS browser source", "/overlay", { channel: "secure" }]],
  commentary: [["Commentary screen", "/commentary", { channel: "secure" }]],
};

const model = {
  request: null, // the console's API call: (method, path, fields) -> reply, never throws
  open: false, loading: false, loaded: false, busy: false,
  roles: [], devices: [],
  message: "", ok: false,
  created: null, // { name, role, token }: on screen until Done or the next device
  armed: null, armTimer: null,
};
let rows = null;
let shown = null; // the token whose box is drawn

/** The page URLs a device of `role` opens with `token` (none for a role without a page). */
export function pageUrls(role, token, origin = location.origin) {
  return (ROLE_PAGES[role] || []).map(([label, path, query]) => {
    const url = new URL(path, origin);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    url.searchParams.set("token", token);
    return { label, url: url.href };
  });
}

/** "2026-12-05 21:03" in local time. */
export function when(unixSeconds) {
  if (typeof unixSeconds !== "number") return "";
  const d = new Date(unixSeconds * 1000);
  const two = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} `
    + `${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** The server's answer to GET /api/devices, keeping only well-formed entries. */
function accept(reply) {
  const roles = Array.isArray(reply.roles) ? reply.roles.filter((r) => typeof r === "string")
    : [];
  const devices = (Array.isArray(reply.devices) ? reply.devices : [])
    .filter((d) => d && typeof d.name === "string")
    .map((d) => ({ name: d.name, role: String(d.role || ""),
      created: typeof d.created === "number" ? d.created : null,
      revoked: typeof d.revoked === "number" ? d.revoked : null }));
  // A server from before the roles were listed: the roles its devices have, at least.
  model.roles = roles.length ? roles : [...new Set(devices.map((d) => d.role))];
  model.devices = devices;
  model.loaded = true;
}

function say(message, ok) {
  model.message = message || "";
  model.ok = Boolean(ok);
}

function refused(reply, fallback) {
  return reply && reply.error && reply.error.message ? reply.error.message : fallback;
}

async function load() {
  model.loading = true;
  draw();
  const reply = await model.request("GET", "/api/devices");
  model.loading = false;
  if (reply && !reply.error) accept(reply);
  else say(`The device list could not be read: ${refused(reply, "no answer")}`, false);
  draw();
}

async function create() {
  const name = $("device-name").value.trim();
  const role = $("device-role").value;
  if (!name || !role) {
    say(name ? "Choose the device's role" : "Give the device a name (e.g. tablet 2)", false);
    draw();
    return;
  }
  const reply = await model.request("POST", "/api/devices", { name, role });
  if (reply === null) {
    say("Another command is in flight: nothing was sent. Try again.", false);
  } else if (reply.ok && typeof reply.token === "string") {
    model.created = { name: reply.name || name, role: reply.role || role, token: reply.token };
    $("device-name").value = "";
    say("", true);
  } else {
    say(refused(reply, "The device was not created"), false); // what was typed stays
  }
  draw();
  if (reply && reply.ok) await load();
}

function disarm() {
  clearTimeout(model.armTimer);
  model.armed = null;
  model.armTimer = null;
}

async function revoke(name) {
  if (model.armed !== name) {
    disarm();
    model.armed = name;
    model.armTimer = setTimeout(() => { disarm(); draw(); }, ARM_MS);
    draw();
    return;
  }
  disarm();
  draw();
  const reply = await model.request("DELETE", `/api/devices/${encodeURIComponent(name)}`);
  if (reply === null) say("Another command is in flight: nothing was sent. Try again.", false);
  else if (reply.ok) {
    say(`${name} is revoked: its pages are disconnected and its token is refused from now `
      + "on.", true);
    if (model.created && model.created.name === name) model.created = null;
  }
  else say(refused(reply, `${name} was not revoked`), false);
  draw();
  if (reply) await load(); // revoked, or changed meanwhile (e.g. from the CLI)
}

async function copy(input, button) {
  let done = false;
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(input.value);
      done = true;
    }
  } catch (error) {
    done = false;
  }
  if (!done) { // a tablet on plain HTTP has no clipboard API: select it for a manual copy
    input.focus();
    input.select();
    try {
      done = document.execCommand("copy");
    } catch (error) {
      done = false;
    }
  }
  setText(button, done ? "Copied" : "Selected: copy it");
  setTimeout(() => setText(button, "Copy"), COPIED_MS);
}

function copyField(label, value, kind) {
  const input = el("input", { class: "device-secret", data: { field: kind },
    attrs: { type: "text", readonly: "", autocomplete: "off", spellcheck: "false",
      "aria-label": label } });
  input.value = value;
  const button = el("button", { class: "btn small", text: "Copy", data: { copy: kind },
    attrs: { type: "button" } });
  button.addEventListener("click", () => copy(input, button));
  return el("div", { class: "device-field" }, el("span", { class: "muted", text: label }),
    input, button);
}

function drawToken() {
  const box = $("device-token");
  const created = model.created;
  box.hidden = !created;
  if (!created) {
    if (shown !== null) $("device-token-fields").replaceChildren();
    shown = null;
    return;
  }
  if (shown === created.token) return;
  shown = created.token;
  setText($("device-token-title"), `Token for ${created.name} (${created.role})`);
  $("device-token-fields").replaceChildren(copyField("Token", created.token, "token"),
    ...pageUrls(created.role, created.token).map((page, i) => copyField(page.label, page.url,
      `url-${i}`)));
}

function createRow() {
  const button = el("button", { class: "btn ghost small", text: "Revoke",
    data: { action: "revoke" }, attrs: { type: "button" } });
  const row = el("li", {},
    el("span", { class: "device-name" }),
    el("span", { class: "chip device-role" }),
    el("span", { class: "muted device-created" }),
    el("span", { class: "chip device-state" }),
    button);
  button.addEventListener("click", () => revoke(row.dataset.device));
  return row;
}

function updateRow(row, device) {
  const live = device.revoked === null;
  const q = (selector) => row.querySelector(selector);
  row.dataset.device = device.name;
  row.dataset.state = live ? "live" : "revoked";
  setText(q(".device-name"), device.name);
  setText(q(".device-role"), device.role);
  setText(q(".device-created"), device.created === null ? "" : `made ${when(device.created)}`);
  const state = q(".device-state");
  setText(state, live ? "live" : `revoked ${when(device.revoked)}`);
  toggle(state, "health-ok", live);
  toggle(state, "health-offline", !live);
  const button = q("[data-action=revoke]");
  button.hidden = !live;
  const armed = live && model.armed === device.name;
  button.className = `btn ${armed ? "danger armed" : "ghost"} small`;
  setText(button, armed ? `Really revoke ${device.name}?` : "Revoke");
  button.disabled = model.busy;
}

function syncRoles() {
  const select = $("device-role");
  const current = [...select.options].map((option) => option.value);
  if (current.join("\n") === model.roles.join("\n")) return;
  const chosen = select.value;
  select.replaceChildren(...model.roles.map((role) => el("option", {
    text: ROLE_HINTS[role] ? `${role} (${ROLE_HINTS[role]})` : role, attrs: { value: role } })));
  if (model.roles.includes(chosen)) select.value = chosen;
}

function paint() {
  const toggleButton = $("btn-devices-toggle");
  toggleButton.setAttribute("aria-expanded", String(model.open));
  setText(toggleButton, model.open ? "Hide" : "Show");
  $("devices-body").hidden = !model.open;
  $("btn-devices-refresh").hidden = !model.open;
  $("btn-devices-refresh").disabled = model.loading;
  const live = model.devices.filter((d) => d.revoked === null).length;
  setText($("devices-summary"), model.loading ? "reading…" : model.loaded
    ? `${live} live · ${model.devices.length - live} revoked` : "");
  rows.sync(model.devices, (d) => d.name, updateRow);
  $("device-empty").hidden = !(model.loaded && model.devices.length === 0);
  syncRoles();
  $("btn-device-create").disabled = model.busy || model.roles.length === 0;
  const message = $("device-message");
  setText(message, model.message);
  toggle(message, "ok", model.ok);
  toggle(message, "bad", !model.ok && Boolean(model.message));
  drawToken();
}

/** Draw the panel from its model; a fault here is shown in the panel, the console goes on. */
function draw() {
  if (!rows) return;
  try {
    paint();
  } catch (error) {
    setText($("device-message"), `The devices panel failed: ${error}`);
  }
}

/** The console's render: `busy` while a command is in flight (the buttons wait). */
export function renderDevices(busy) {
  model.busy = Boolean(busy);
  draw();
}

/** Wire the panel once; `request(method, path, fields)` is the console's API call. */
export function wireDevices(request) {
  model.request = request;
  rows = new KeyedList($("device-list"), createRow);
  $("btn-devices-toggle").addEventListener("click", () => {
    model.open = !model.open;
    draw();
    if (model.open) load();
  });
  $("btn-devices-refresh").addEventListener("click", () => load());
  $("device-form").addEventListener("submit", (event) => {
    event.preventDefault();
    create();
  });
  $("btn-device-token-done").addEventListener("click", () => {
    model.created = null;
    draw();
  });
  draw();
}
