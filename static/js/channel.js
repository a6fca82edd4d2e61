// The one shared channel client of every Feltcast page (docs/view-model.md).
//
// connect to /ws/<channel> → hello {page, version, resume} → snapshot → patch, patch, ...
// A patch is a JSON Merge Patch (RFC 7386) of the view. A revision other than last + 1 is a
// gap: the client keeps showing its last good view and reconnects for a fresh snapshot.
// When the server goes away the last good view stays on screen; the client reconnects with
// exponential backoff and jitter and resumes from the last revision it applied.
//
// Usage:
//   const channel = connectChannel({channel: "delayed", page: "overlay"});
//   channel.subscribe(render);          // render(view, {revision, events, status})
//   channel.onStatus((status) => ...);  // "connecting" | "live" | "resyncing" | "offline"
//   channel.onTheme((theme) => ...);    // the look on air (js/graphics.js, docs/graphics.md)
//
// Besides the view's snapshot and patches the server sends {"type": "theme", "theme": {...}}
// (the hello's `look` asks for it: the look last shown, null at first) when the page does not
// show the look on air yet and whenever the producer changes it: outside the channel's
// revisions (it carries nothing of the table), so it never counts as a gap.

const STATUSES = new Set(["connecting", "live", "resyncing", "offline"]);

/** The asset version the server stamped into the page (<meta name="feltcast-version">). */
export function assetVersion(doc = document) {
  const meta = doc.querySelector('meta[name="feltcast-version"]');
  return (meta && meta.getAttribute("content")) || "dev";
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** RFC 7386 JSON Merge Patch: returns a new value; `target` is never modified. */
export function mergePatch(target, patch) {
  if (!isObject(patch)) {
    return structuredClone(patch);
  }
  const result = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key];
    } else {
      result[key] = mergePatch(result[key], value);
    }
  }
  return result;
}

/** Delay before reconnect attempt `attempt` (0-based): exponential, capped, with jitter. */
export function backoffDelay(attempt, { base = 400, cap = 8000, random = Math.random } = {}) {
  const ceiling = Math.min(cap, base * 2 ** Math.min(attempt, 16));
  // "Equal jitter": half fixed, half random, so a venue full of pages never reconnects in step.
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

export class Channel {
  /**
   * @param {object} options
   * @param {string} options.channel  channel name, e.g. "delayed"
   * @param {string} options.page     page id sent in hello ("overlay", "commentary", ...)
   * @param {string|null} [options.token]  sent as ?token= (browsers cannot set ws headers)
   * @param {string} [options.version] asset version (defaults to the page's meta tag)
   * @param {string} [options.base]    the URL the channel lives beside, ending in "/" (e.g.
   *                                   a festival worker's table: origin + "/t/<table>/");
   *                                   defaults to beside this page
   * @param {boolean} [options.marks]  mark the document with its status and revision
   *                                   (false: a page's second channel, e.g. the festival's
   *                                   standings beside a table's channel)
   */
  constructor({ channel, page, token = null, version = null, base = null, marks = true }) {
    this.channel = channel;
    this.marks = marks;
    this.page = page;
    this.token = token;
    this.version = version || assetVersion();
    // Beside the page (or beside `base`): /overlay reads /ws/<channel>; a festival worker's
    // /t/<table>/overlay reads /t/<table>/ws/<channel>.
    const url = new URL(`ws/${encodeURIComponent(channel)}`, base || location.href);
    url.protocol = url.protocol === "https:" || url.protocol === "wss:" ? "wss:" : "ws:";
    url.search = "";
    url.hash = "";
    if (token) url.searchParams.set("token", token);
    url.searchParams.set("page", page); // a refused page is named in the console by it
    this.url = url.toString();
    this.view = null; // the last good view: kept when the server is gone
    this.revision = null; // revision of this.view
    this.logId = null; // log_id of the last snapshot (a resume is only valid on the same log)
    this.receivedAt = null; // performance-free wall time (ms) when this.view arrived
    this.status = "connecting";
    this.lastError = null; // the last {"type": "error"} the server sent
    this.theme = null; // the last {"type": "theme"} the server sent: the look on air
    this._clockSamples = []; // server minus local clock (s), one per event time seen
    this._socket = null;
    this._attempt = 0;
    this._timer = null;
    this._stopped = false;
    this._needSnapshot = true; // true until a snapshot arrives on the current socket
    this._renderers = new Set();
    this._statusListeners = new Set();
    this._errorListeners = new Set();
    this._themeListeners = new Set();
  }

  /** Call render(view, meta) now (if a view is known) and on every change; returns unsubscribe. */
  subscribe(render) {
    this._renderers.add(render);
    if (this.view !== null) this._call(render, { revision: this.revision, events: [] });
    return () => this._renderers.delete(render);
  }

  /** Call listener(status) now and on every change of connection status. */
  onStatus(listener) {
    this._statusListeners.add(listener);
    listener(this.status);
    return () => this._statusListeners.delete(listener);
  }

  /** Call listener(error) for every {"type": "error"} message of the server. */
  onError(listener) {
    this._errorListeners.add(listener);
    return () => this._errorListeners.delete(listener);
  }

  /** Call listener(theme) now (if known) and whenever the look on air changes. */
  onTheme(listener) {
    this._themeListeners.add(listener);
    if (this.theme !== null) listener(this.theme);
    return () => this._themeListeners.delete(listener);
  }

  start() {
    this._stopped = false;
    this._open();
    return this;
  }

  stop() {
    this._stopped = true;
    clearTimeout(this._timer);
    if (this._socket) this._socket.close(1000, "page closed");
    this._socket = null;
  }

  _setStatus(status) {
    if (!STATUSES.has(status) || status === this.status) return;
    this.status = status;
    if (this.marks) document.documentElement.dataset.connection = status;
    for (const listener of this._statusListeners) listener(status);
  }

  _open() {
    clearTimeout(this._timer);
    // A resuming client accepts the next patch (revision + 1) or a snapshot; a fresh one
    // only a snapshot.
    this._needSnapshot = this.revision === null;
    let socket;
    try {
      socket = new WebSocket(this.url);
    } catch (error) {
      this._scheduleReconnect();
      return;
    }
    this._socket = socket;
    socket.addEventListener("open", () => {
      if (socket !== this._socket) return;
      // Resuming: the view on screen is current unless the server says otherwise (it sends
      // the missed patches, a snapshot, or nothing when nothing was missed).
      if (this.revision !== null) this._setStatus("live");
      socket.send(JSON.stringify({
        type: "hello",
        page: this.page,
        version: this.version,
        resume: this.revision,
        log_id: this.revision === null ? null : this.logId,
        look: this.theme ? this.theme.look : null, // follow the look on air (docs/graphics.md)
      }));
    });
    socket.addEventListener("message", (event) => {
      if (socket !== this._socket) return;
      this._onMessage(event.data);
    });
    socket.addEventListener("close", () => {
      if (socket !== this._socket) return;
      this._socket = null;
      if (!this._stopped) this._scheduleReconnect();
    });
    // "error" is always followed by "close"; nothing to do here.
  }

  _scheduleReconnect() {
    // Keep this.view: the page goes on showing its last good graphics.
    this._setStatus("offline");
    const delay = backoffDelay(this._attempt);
    this._attempt += 1;
    clearTimeout(this._timer);
    this._timer = setTimeout(() => this._open(), delay);
  }

  /**
   * Now on the view's own clock (log time, seconds): the server's time less the channel's
   * delay, never before the view's as_of. Countdowns (level, R12 clock) use it, so a page
   * that joins late or sits on a delayed channel counts from the right moment.
   */
  viewNow() {
    const channel = this.view && this.view.channel ? this.view.channel : {};
    const samples = this._clockSamples;
    // Every sample arrives after its event was released, so each one underestimates the
    // offset by its transit time: the largest recent one is the best estimate.
    const offset = samples.length ? Math.max(...samples) : 0;
    const now = Date.now() / 1000 + offset - (channel.delay || 0);
    return typeof channel.as_of === "number" ? Math.max(now, channel.as_of) : now;
  }

  _sampleClock(events) {
    const channel = this.view && this.view.channel ? this.view.channel : {};
    for (const event of events) {
      if (typeof event.time !== "number") continue;
      this._clockSamples.push(event.time + (channel.delay || 0) - Date.now() / 1000);
      if (this._clockSamples.length > 20) this._clockSamples.shift();
    }
  }

  /** Drop the socket and ask for a fresh snapshot (the last good view stays on screen). */
  resync() {
    this.revision = null; // resume: null asks the server for a snapshot
    this._setStatus("resyncing");
    const socket = this._socket;
    this._socket = null;
    if (socket) socket.close(4000, "revision gap");
    this._attempt = 0;
    clearTimeout(this._timer);
    this._timer = setTimeout(() => this._open(), backoffDelay(0, { base: 100 }));
  }

  _onMessage(data) {
    let message;
    try {
      message = JSON.parse(data);
    } catch (error) {
      this.resync();
      return;
    }
    if (message.type === "snapshot") {
      this.logId = message.log_id || null;
      this._needSnapshot = false;
      this._attempt = 0;
      this._apply(message.view, message.revision, []);
      this._setStatus("live");
    } else if (message.type === "patch") {
      const expected = this.revision === null ? null : this.revision + 1;
      if (this._needSnapshot || message.revision !== expected) {
        this.resync();
        return;
      }
      this._attempt = 0;
      this._apply(mergePatch(this.view, message.patch), message.revision, message.events || []);
      this._sampleClock(message.events || []);
    } else if (message.type === "error") {
      this.lastError = message.error || null;
      for (const listener of this._errorListeners) listener(this.lastError);
    } else if (message.type === "theme" && message.theme && typeof message.theme === "object") {
      this.theme = message.theme;
      for (const listener of this._themeListeners) {
        try {
          listener(this.theme);
        } catch (error) {
          console.error("theme listener failed:", error);
        }
      }
    }
  }

  _apply(view, revision, events) {
    this.view = view;
    this.revision = revision;
    this.receivedAt = Date.now();
    if (this.marks) document.documentElement.dataset.revision = String(revision);
    const meta = { revision, events };
    for (const render of this._renderers) this._call(render, meta);
  }

  _call(render, meta) {
    try {
      render(this.view, { ...meta, status: this.status, receivedAt: this.receivedAt });
    } catch (error) {
      // A render bug must not cost the connection; it is reported once per revision.
      console.error(`render failed at revision ${meta.revision}:`, error);
    }
  }
}

/** Query-string settings every page understands: ?channel=, ?token=. */
export function pageParams(defaults) {
  const params = new URLSearchParams(location.search);
  return {
    channel: params.get("channel") || defaults.channel,
    token: params.get("token") || defaults.token || null,
  };
}

/**
 * The composed program's channel when this page is one of its graphics (an iframe of
 * /program on the same channel): every graphic of the program shares its one socket. Null
 * otherwise (a page on its own, another channel, another origin).
 */
function programChannel(name) {
  try {
    if (window.parent === window) return null;
    const program = window.parent.feltcastProgram;
    return program && program.channel && program.channel.channel === name
      ? program.channel : null;
  } catch (error) {
    return null; // a parent of another origin: not ours
  }
}

/** Create and start a channel client; in the composed program, share the program's. */
export function connectChannel(options) {
  const shared = programChannel(options.channel);
  if (shared === null) return new Channel(options).start();
  // The program's client marks its own document; this page's is marked the same way.
  const root = document.documentElement;
  shared.subscribe((view, meta) => { root.dataset.revision = String(meta.revision); });
  shared.onStatus((status) => { root.dataset.connection = status; });
  return shared;
}
