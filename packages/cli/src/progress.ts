/**
 * The progress line of long commands: done/total, throughput and ETA,
 * redrawn at most 10 times a second on standard error, and only when that is
 * an interactive terminal outside CI (see `main`). Hand-rolled on purpose:
 * one `\r`-rewritten line needs ~40 lines and no dependency, while the
 * maintained libraries (cli-progress, progress) pull in multi-bar layouts,
 * string templating and terminal detection we do not use.
 *
 * @module
 */

/** Formats a byte count with binary units. */
export function formatBytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${i === 0 ? Math.round(n) : n.toFixed(1)} ${units[i]}`;
}

/** Formats seconds as `m:ss` or `h:mm:ss`. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "--:--";
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

/** A progress line over `total` units; `draw` is absent when progress is not shown. */
export class Progress {
  #done = 0;
  #bytes = 0;
  #last = 0;
  readonly #start = performance.now();

  constructor(
    readonly total: number,
    readonly label: string,
    private readonly draw?: (line: string) => void,
  ) {}

  /** Records `units` finished units that moved `bytes` bytes of data. */
  tick(units: number, bytes: number): void {
    this.#done += units;
    this.#bytes += bytes;
    const now = performance.now();
    if (this.draw && (now - this.#last > 100 || this.#done === this.total)) {
      this.#last = now;
      const elapsed = (now - this.#start) / 1000;
      const rate = elapsed > 0 ? this.#bytes / elapsed : 0;
      const eta = this.#done > 0 ? (elapsed * (this.total - this.#done)) / this.#done : Number.NaN;
      const pct = this.total > 0 ? Math.floor((100 * this.#done) / this.total) : 100;
      this.draw(
        `${this.label} ${String(pct).padStart(3)}% ${this.#done}/${this.total} ${formatBytes(rate)}/s ETA ${formatDuration(eta)}`,
      );
    }
  }

  /** Clears the line. */
  finish(): void {
    this.draw?.("");
  }
}
