// The operator console's Decks panel: the RFID decks of operator.decks (docs/view-model.md),
// activate / retire buttons, and the guided registration scan (docs/commands.md, "Decks"):
// a big prompt with the card to present, progress, the phase and the last refusal.
import { cardElement } from "./cards.js";
import { el, setText } from "./dom.js";

const $ = (id) => document.getElementById(id);
const PHASES = { scan: "Scan", verify: "Verification", done: "Done" };
// Retiring is for good: the first tap arms the button for a few seconds, the second sends.
const ARM_MS = 4000;
const armed = { deck: null, until: 0 };

/** The reader names of the view's capture list ("reader:table" -> "table"). */
function readerNames(op) {
  return (op.capture || []).map((source) => String(source.source || ""))
    .filter((source) => source.startsWith("reader:")).map((source) => source.slice(7));
}

function syncReaders(names) {
  const select = $("deck-reader");
  const current = [...select.options].map((option) => option.value);
  if (current.join("\n") === names.join("\n")) return;
  const chosen = select.value;
  select.replaceChildren(...names.map((name) => el("option", { text: name,
    attrs: { value: name } })));
  if (names.includes(chosen)) select.value = chosen;
}

function deckRow(deck, active, busy, send) {
  const buttons = [];
  if (deck.status !== "retired") {
    const activate = el("button", { class: "btn small", text: "Activate",
      data: { action: "activate", deck: deck.name }, attrs: { type: "button" } });
    activate.disabled = busy || deck.name === active;
    activate.addEventListener("click", () => send("deck_activate", { name: deck.name }));
    const isArmed = armed.deck === deck.name && Date.now() < armed.until;
    const retire = el("button", { class: `btn ${isArmed ? "danger armed" : "ghost"} small`,
      text: isArmed ? "Tap again: retire for good" : "Retire",
      data: { action: "retire", deck: deck.name }, attrs: { type: "button" } });
    retire.disabled = busy;
    retire.addEventListener("click", () => {
      if (armed.deck === deck.name && Date.now() < armed.until) {
        armed.deck = null;
        send("deck_retire", { name: deck.name });
        return;
      }
      armed.deck = deck.name;
      armed.until = Date.now() + ARM_MS;
      retire.className = "btn danger armed small";
      setText(retire, "Tap again: retire for good");
    });
    buttons.push(activate, retire);
  }
  return el("li", { data: { deck: deck.name, status: deck.status } },
    el("span", { class: "deck-name", text: deck.name }),
    el("span", { class: `chip deck-${deck.status}`, text: deck.status }),
    el("span", { class: "muted", text: `${deck.cards} cards` }),
    ...buttons);
}

function renderScan(scan, busy) {
  const box = $("deck-scan");
  box.hidden = !scan;
  $("deck-form").hidden = Boolean(scan && scan.phase !== "done");
  if (!scan) return;
  box.dataset.phase = scan.phase;
  const holder = $("deck-scan-card");
  const key = scan.card || "";
  if (holder.dataset.card !== key) {
    holder.dataset.card = key;
    holder.replaceChildren(...(scan.card ? [cardElement(scan.card)] : []));
  }
  setText($("deck-scan-title"), `Deck ${scan.name} · ${PHASES[scan.phase] || scan.phase}`
    + (scan.reader ? ` · ${scan.reader}, antenna ${scan.antenna}` : ""));
  setText($("deck-scan-text"), scan.text);
  const progress = $("deck-scan-progress");
  progress.max = scan.total || 52;
  progress.value = scan.done || 0;
  const verb = scan.phase === "verify" ? "verified" : "registered";
  setText($("deck-scan-count"), `${scan.done} of ${scan.total} ${verb}`);
  setText($("deck-scan-message"), scan.message || "");
  // A verified scan that could not be saved (e.g. its name was taken meanwhile) is saved
  // under another name: the cards are not scanned again. The name is filled in once.
  const save = $("deck-save");
  save.hidden = !(scan.phase === "done" && scan.saved === false);
  if (save.hidden) delete save.dataset.scan;
  else if (save.dataset.scan !== scan.name) {
    save.dataset.scan = scan.name;
    $("deck-save-name").value = scan.name;
  }
  $("btn-deck-save").disabled = busy;
  const cancel = $("btn-deck-cancel");
  setText(cancel, scan.phase === "done" ? "Close" : "Cancel scan");
  cancel.disabled = busy;
}

/** Draw operator.decks; the panel is hidden when the service has no RFID reader. */
export function renderDecks(op, busy, send) {
  const decks = op.decks || null;
  const panel = $("decks");
  panel.hidden = !decks;
  if (!decks) return;
  setText($("deck-active"), decks.active ? `Active deck: ${decks.active}` : "No active deck");
  $("deck-list").replaceChildren(...(decks.decks || []).map(
    (deck) => deckRow(deck, decks.active, busy, send)));
  syncReaders(readerNames(op));
  renderScan(decks.scan || null, busy);
  $("btn-deck-start").disabled = busy;
}

/** Wire the register and save forms and the cancel button to `send(type, fields)`. */
export function wireDecks(send) {
  $("deck-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = $("deck-name").value.trim();
    const antenna = Number.parseInt($("deck-antenna").value, 10);
    if (!name || !Number.isInteger(antenna)) return;
    send("deck_scan_start", { name, reader: $("deck-reader").value, antenna });
  });
  $("deck-save").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = $("deck-save-name").value.trim();
    if (name) send("deck_scan_save", { name });
  });
  $("btn-deck-cancel").addEventListener("click", () => send("deck_scan_cancel"));
}
