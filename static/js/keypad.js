// The amount keypad of the operator console: it knows the minimum and the maximum of a bet or
// "raise to" total. Typing past the maximum clamps to the maximum (no stack can bet more than it
// has). An amount below the minimum is NOT silently raised: R8 makes the engine rule on it
// (completed to the minimum, or a call), so the keypad flags it and shows the ruling text.

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

  get belowMin() {
    return this.value > 0 && this.min !== null && this.value < this.min;
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
