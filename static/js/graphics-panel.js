// The operator console's Graphics panel (issue 19; docs/graphics.md): the theme on air, the
// logo on or off, which sponsors rotate and how fast, the operator's ticker lines, and a
// reload of the theme folders. Every
// change is a PUT /api/graphics through the console's one API path (operator.js, sendRequest);
// the server tells every page on air, which follows without a reload. A refusal (an unknown
// theme, a broken theme folder on reload) is shown here with the server's own message, and
// the look on air stays as it was.
import { KeyedList, el, setText, toggle } from "./dom.js";

const $ = (id) => document.getElementById(id);

const model = {
  request: null, // the console's API call: (method, path, fields) -> reply, never throws
  open: false, loading: false, loaded: false, busy: false,
  sending: false, // a change is in flight: the boxes keep what was just ticked
  panel: null, // GET /api/graphics
  seats: [], // the table's seated players (the console's view), for the lower third's cue
  message: "", ok: false,
};
let themes = null;
let sponsors = null;

function say(message, ok) {
  model.message = message || "";
  model.ok = Boolean(ok);
}

function refused(reply, fallback) {
  return reply && reply.error && reply.error.message ? reply.error.message : fallback;
}

function accept(reply) {
  if (!reply || typeof reply !== "object" || !reply.on_air || !Array.isArray(reply.themes)) {
    return false;
  }
  model.panel = reply;
  model.loaded = true;
  return true;
}

async function load() {
  model.loading = true;
  draw();
  const reply = await model.request("GET", "/api/graphics");
  model.loading = false;
  if (!(reply && !reply.error && accept(reply))) {
    say(`The graphics could not be read: ${refused(reply, "no answer")}`, false);
  }
  draw();
}

/** PUT /api/graphics with `changes`; `done` says what happened on air. */
async function change(changes, done) {
  model.sending = true;
  const reply = await model.request("PUT", "/api/graphics", changes).finally(() => {
    model.sending = false;
  });
  if (reply === null) say("Another command is in flight: nothing was sent. Try again.", false);
  else if (reply.ok && accept(reply)) say(done, true);
  else say(refused(reply, "The graphics did not change"), false);
  draw();
}

async function reloadThemes() {
  const reply = await model.request("POST", "/api/graphics/reload");
  if (reply === null) say("Another command is in flight: nothing was sent. Try again.", false);
  else if (reply.ok && accept(reply)) {
    const changed = Array.isArray(reply.reloaded) ? reply.reloaded : [];
    say(changed.length ? `Reloaded: ${changed.join(", ")} changed` : "Reloaded: no theme "
      + "changed", true);
  } else say(refused(reply, "The themes were not reloaded"), false);
  draw();
}

function createTheme() {
  const button = el("button", { class: "theme-choice", attrs: { type: "button",
    role: "radio", "aria-checked": "false" } },
  el("span", { class: "theme-swatches" }, el("span"), el("span"), el("span"), el("span")),
  el("span", { class: "theme-title" }),
  el("span", { class: "theme-description" }));
  button.addEventListener("click", () => {
    const name = button.dataset.theme;
    const current = model.panel && model.panel.on_air.name;
    if (name && name !== current) change({ theme: name }, `${button.dataset.title} is on air`);
  });
  return button;
}

function updateTheme(button, theme) {
  const onAir = model.panel.on_air.name === theme.name;
  button.dataset.theme = theme.name;
  button.dataset.title = theme.title;
  button.setAttribute("aria-checked", String(onAir));
  button.disabled = model.busy;
  setText(button.querySelector(".theme-title"), onAir ? `${theme.title} · on air` : theme.title);
  setText(button.querySelector(".theme-description"), theme.description || "");
  const colors = theme.colors || {};
  const swatches = button.querySelectorAll(".theme-swatches span");
  // What a theme leaves out is the dark theme's (the defaults of static/css/base.css).
  const shown = [colors.panel || "rgb(11, 15, 25)", colors.ink || "#f4f6fb",
    colors.accent || "#ffc23d", colors.allin || "#ff6b6b"];
  swatches.forEach((swatch, i) => { swatch.style.background = shown[i]; });
}

function createSponsor() {
  const input = el("input", { attrs: { type: "checkbox" } });
  const row = el("li", {}, el("label", { class: "graphics-check" }, input,
    el("img", { class: "graphics-thumb", attrs: { alt: "" } }),
    el("span", { class: "sponsor-name" })));
  input.addEventListener("change", () => {
    const all = model.panel.sponsors.map((s) => s.id);
    const shown = new Set(currentSponsors());
    if (input.checked) shown.add(row.dataset.id);
    else shown.delete(row.dataset.id);
    change({ sponsors: all.filter((id) => shown.has(id)) },
      `${shown.size} sponsor${shown.size === 1 ? "" : "s"} on air`);
  });
  return row;
}

function currentSponsors() {
  const choice = model.panel.choice.sponsors;
  return Array.isArray(choice) ? choice : model.panel.sponsors.map((s) => s.id);
}

function updateSponsor(row, sponsor) {
  row.dataset.id = sponsor.id;
  const input = row.querySelector("input");
  if (!model.sending) input.checked = currentSponsors().includes(sponsor.id);
  input.disabled = model.busy;
  input.setAttribute("aria-label", `sponsor ${sponsor.name}`);
  const img = row.querySelector("img");
  if (img.getAttribute("src") !== sponsor.url) img.setAttribute("src", sponsor.url);
  setText(row.querySelector(".sponsor-name"), sponsor.name);
}

function syncLayouts(panel) {
  const select = $("graphics-layout");
  const layouts = panel && Array.isArray(panel.layouts) ? panel.layouts : [];
  const names = layouts.map((layout) => layout.name).join("\n");
  if ([...select.options].map((option) => option.value).join("\n") !== names) {
    select.replaceChildren(...layouts.map((layout) => el("option", { text: layout.title,
      attrs: { value: layout.name } })));
  }
  select.disabled = model.busy || !panel;
  const safe = $("graphics-safe");
  safe.disabled = model.busy || !panel;
  if (panel && !model.sending) {
    select.value = panel.on_air.layout;
    safe.checked = Boolean(panel.on_air.safe_area);
  }
}

function syncCue(panel) {
  const select = $("graphics-lowerthird");
  const cued = panel && Number.isInteger(panel.on_air.lowerthird) ? panel.on_air.lowerthird
    : null;
  const choices = [{ value: "", text: "Off air" },
    ...model.seats.map((seat) => ({ value: String(seat.seat),
      text: `Seat ${seat.seat} · ${seat.name}` }))];
  if (cued !== null && !model.seats.some((seat) => seat.seat === cued)) {
    choices.push({ value: String(cued), text: `Seat ${cued} (empty)` });
  }
  const key = choices.map((c) => `${c.value}=${c.text}`).join("\n");
  if (select.dataset.choices !== key) {
    select.dataset.choices = key;
    select.replaceChildren(...choices.map((c) => el("option", { text: c.text,
      attrs: { value: c.value } })));
  }
  select.disabled = model.busy || !panel;
  if (!model.sending && document.activeElement !== select) {
    select.value = cued === null ? "" : String(cued);
  }
}

function paint() {
  const toggleButton = $("btn-graphics-toggle");
  toggleButton.setAttribute("aria-expanded", String(model.open));
  setText(toggleButton, model.open ? "Hide" : "Show");
  $("graphics-body").hidden = !model.open;
  const panel = model.panel;
  const onAir = panel ? panel.on_air : null;
  setText($("graphics-summary"), model.loading ? "reading…" : onAir
    ? `${onAir.title} · logo ${onAir.logo ? "on" : "off"} · ${onAir.sponsors.length} `
      + `sponsor${onAir.sponsors.length === 1 ? "" : "s"}` : "");
  themes.sync(panel ? panel.themes : [], (t) => t.name, updateTheme);
  const logo = $("graphics-logo");
  logo.disabled = model.busy || !(panel && panel.logo);
  if (!model.sending) logo.checked = Boolean(panel && panel.choice.logo && panel.logo);
  setText($("graphics-logo-name"), panel && panel.logo ? panel.logo.name : "(none)");
  const preview = $("graphics-logo-preview");
  preview.hidden = !(panel && panel.logo);
  if (panel && panel.logo && preview.getAttribute("src") !== panel.logo.url) {
    preview.setAttribute("src", panel.logo.url);
  }
  sponsors.sync(panel ? panel.sponsors : [], (s) => s.id, updateSponsor);
  syncLayouts(panel);
  syncCue(panel);
  $("sponsor-empty").hidden = !(panel && panel.sponsors.length === 0);
  const period = $("sponsor-period");
  if (onAir && document.activeElement !== period) period.value = String(onAir.sponsor_period);
  $("btn-sponsor-period").disabled = model.busy || !panel;
  $("btn-themes-reload").disabled = model.busy || !panel;
  const lines = $("ticker-messages");
  if (onAir && document.activeElement !== lines && !model.sending) {
    lines.value = (Array.isArray(onAir.messages) ? onAir.messages : []).join("\n");
  }
  $("btn-ticker").disabled = model.busy || !panel;
  const message = $("graphics-message");
  setText(message, model.message);
  toggle(message, "ok", model.ok);
  toggle(message, "bad", !model.ok && Boolean(model.message));
}

function draw() {
  if (!themes) return;
  try {
    paint();
  } catch (error) {
    setText($("graphics-message"), `The graphics panel failed: ${error}`);
  }
}

/** The console's render: `busy` while a command is in flight (the controls wait); `view` the
 * console's view (its seats are the lower third's choices). */
export function renderGraphics(busy, view = null) {
  model.busy = Boolean(busy);
  model.seats = view && Array.isArray(view.seats)
    ? view.seats.filter((seat) => seat && seat.name) : [];
  draw();
}

/** Wire the panel once; `request(method, path, fields)` is the console's API call. */
export function wireGraphics(request) {
  model.request = request;
  themes = new KeyedList($("theme-list"), createTheme);
  sponsors = new KeyedList($("sponsor-list"), createSponsor);
  $("btn-graphics-toggle").addEventListener("click", () => {
    model.open = !model.open;
    draw();
    if (model.open) load();
  });
  $("graphics-logo").addEventListener("change", (event) => {
    const on = event.target.checked;
    change({ logo: on }, on ? "The logo is on air" : "The logo is off air");
  });
  $("btn-sponsor-period").addEventListener("click", () => {
    const seconds = Number($("sponsor-period").value);
    change({ sponsor_period: seconds }, `A sponsor every ${seconds} s`);
  });
  $("btn-themes-reload").addEventListener("click", () => reloadThemes());
  $("graphics-lowerthird").addEventListener("change", (event) => {
    const seat = event.target.value ? Number(event.target.value) : null;
    const option = event.target.selectedOptions[0];
    change({ lowerthird: seat }, seat === null ? "The lower third is off air"
      : `Lower third: ${option ? option.textContent : `seat ${seat}`}`);
  });
  $("btn-ticker").addEventListener("click", () => {
    // One message per line; blank lines are dropped (the server checks the rest).
    const messages = $("ticker-messages").value.split("\n").filter((line) => line.trim());
    change({ messages }, messages.length ? `${messages.length} ticker `
      + `line${messages.length === 1 ? "" : "s"} on air` : "The ticker lines are off air");
  });
  $("graphics-layout").addEventListener("change", (event) => {
    const option = event.target.selectedOptions[0];
    change({ layout: event.target.value }, `${option ? option.textContent : "The layout"} is on `
      + "air");
  });
  $("graphics-safe").addEventListener("change", (event) => {
    const on = event.target.checked;
    change({ safe_area: on }, on ? "Everything inside the title-safe area"
      : "The whole frame is used");
  });
  draw();
}
