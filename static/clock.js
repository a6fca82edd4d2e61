// The level clock (docs/pages.md): level, time left counting down locally from the view's
// `remaining` at `as_of` (server time; the server shifts a delayed channel's clock by its delay,
// so it counts with its pictures), blinds and ante, BREAK, the next level, and the field:
// players left, average stack, prize pool.
//   ?channel=delayed (default)  ?token=
import { setText, toggle } from "./js/dom.js";
import { anteText, blindsText, chips, clockText, everyTick, levelClock, money,
  playersLeftText, startGraphic, tournamentOf } from "./js/tournament.js";

const $ = (id) => document.getElementById(id);
const shown = { view: null };

function tick() {
  // The tournament clock, standing still before the floor starts it (null without one).
  const level = shown.view ? levelClock(shown.view, channel, { unstarted: true }) : null;
  const remaining = level ? level.remaining : null;
  setText($("time"), remaining === null ? "" : clockText(remaining));
  // The last minute of a level is flagged (the floor announces it).
  toggle($("clock"), "last-minute", remaining !== null && remaining <= 60 && level.running);
}

/** The one render function: first paint and every update. */
export function render(view) {
  const tournament = tournamentOf(view);
  const clock = tournament ? tournament.clock : null;
  shown.view = view;
  const stage = $("stage");
  toggle(stage, "empty", !clock);
  if (!clock) return;
  const onBreak = Boolean(clock.is_break);
  toggle($("clock"), "break", onBreak);
  toggle($("clock"), "paused", !clock.running);
  setText($("level"), onBreak ? clock.name || "Break" : `Level ${clock.level}`);
  setText($("state"), clock.running ? "" : clock.started === false ? "Not started" : "Paused");
  setText($("blinds"), onBreak ? "" : blindsText(clock));
  setText($("ante"), onBreak || !clock.ante ? "" : chips(clock.ante));
  $("ante-fact").hidden = onBreak || !clock.ante;
  $("blinds").parentElement.hidden = onBreak;
  const next = clock.next;
  setText($("next"), next ? [blindsText(next), anteText(next)].filter(Boolean).join(" · ")
    : "");
  $("next").parentElement.hidden = !next;
  const field = tournament.field || {};
  setText($("players"), playersLeftText(field));
  setText($("average"), chips(field.average));
  const payouts = tournament.payouts;
  setText($("pool"), payouts ? money(payouts.prize_pool, payouts.currency) : "");
  $("pool-fact").hidden = !payouts || !payouts.prize_pool;
  tick();
}

const { channel } = startGraphic("clock", render);
everyTick(tick);
