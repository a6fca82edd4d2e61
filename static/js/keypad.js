// The amount keypad of the operator console: it knows the minimum and the maximum of a bet or
// "raise to" total. Typing past the maximum clamps to the maximum (no stack can bet more than it
// has). An amount below the minimum is NOT silently raised: R8 makes the engine rule on it
// (completed to the minimum, or a call), so the keypad flags it and shows the ruling text.
//
// Predictive entry (as PokerGFX's Action Tracker does): digits an order of magnitude below the
// minimum are completed with zeros to the first amount at or above the minimum that the stack
// covers ("5" with a minimum of 48,000 is 50,000; "12" is 120,000). `amount` is what a submit
// sends: the completed amount, or the digits as typed (a short raise stays one, for R8).

export class Keypad {
  constructor(onChange = () => {}) {
    this.value = 0;
    this.min = null;
    this.max = null;
    this.clamped = false; // the last key hit the maximum
    this.onChange = onChange;
  }

  setLimits(min, max) {
    const changed = min !== this.min || max !== this.max;
    this.min = min;
    this.max = max;
    if (changed) {
      this.value = 0;
      this.clamped = false;
    }
    this.onChange(this);
  }

  /** The completed amount for digits well below the minimum, or null. */
  get predicted() {
    if (this.value <= 0 || this.min === null || this.max === null) return null;
    if (this.value * 10 > this.min) return null; // a plausible amount as typed (R8 decides)
    let amount = this.value;
    while (amount < this.min) amount *= 10;
    return amount <= this.max ? amount : null;
  }

  /** What a submit sends. */
  get amount() {
    return this.predicted === null ? this.value : this.predicted;
  }

  get belowMin() {
    return this.amount > 0 && this.min !== null && this.amount < this.min;
  }

  _set(value) {
    this.clamped = this.max !== null && value > this.max;
    this.value = this.clamped ? this.max : Math.max(0, Math.floor(value));
    this.onChange(this);
  }

  /** A preset: the amount itself (clamped to the maximum like a typed one). */
  choose(amount) {
    this._set(amount);
  }

  /** key: "0".."9", "000", "back", "clear", "min", "max" */
  press(key) {
    if (/^\d+$/.test(key)) {
      this._set(Number(`${this.value || ""}${key}`));
    } else if (key === "back") {
      this._set(Math.floor(this.value / 10));
    } else if (key === "clear") {
      this._set(0);
    } else if (key === "min" && this.min !== null) {
      this._set(this.min);
    } else if (key === "max" && this.max !== null) {
      this._set(this.max);
    }
  }
}
