/** Display helpers: every function returns plain text that the JSX escapes. */

const numberFormat = new Intl.NumberFormat('en-US');

export const count = (n: number): string => numberFormat.format(n);

/** A count Redis may not know: `null` is "unknown", never 0. */
export const maybeCount = (n: number | null): string => (n === null ? 'unknown' : count(n));

/** A duration in ms, short and readable: `850 ms`, `12.3 s`, `4 min 05 s`, `2 h 10 min`, `3 d 4 h`. */
export function duration(ms: number): string {
  if (!Number.isFinite(ms)) return 'unknown';
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  if (abs < 1000) return `${sign}${Math.round(abs)} ms`;
  if (abs < 60_000) return `${sign}${(abs / 1000).toFixed(abs < 10_000 ? 1 : 0)} s`;
  const s = Math.floor(abs / 1000);
  if (s < 3600) return `${sign}${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  if (s < 86_400) return `${sign}${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
  return `${sign}${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

/** Server time as `2026-11-30 21:26:03.120 UTC`. */
export function serverTime(ms: number): string {
  if (!Number.isFinite(ms)) return 'unknown';
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', ' UTC');
}

/** The time a stream entry ID encodes (its first part, ms since the epoch). */
export function entryTime(id: string): number {
  const ms = Number(id.split('-')[0]);
  return Number.isFinite(ms) ? ms : Number.NaN;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** The first `max` characters of `text` on one line, with an ellipsis when cut. */
export function preview(text: string, max = 120): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

// Control and format characters (bidi overrides and isolates, zero-width joiners and spaces, BOM),
// line separators, and blanks that are not a plain space. Shown raw they reverse the text after a
// name, or make two names look the same.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Zs}\u3164\uffa0]|\u034f|\u115f|\u1160|\u17b4|\u17b5/gu;
const escapeChar = (ch: string) => {
  const code = ch.codePointAt(0)!;
  const hex = code.toString(16).toUpperCase();
  return code > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
};

/**
 * A name from Redis (stream, group, consumer, field, reason) as the page shows it: every
 * invisible or direction-changing character written as an escape (`\u202E`), plain spaces kept.
 */
export function shown(name: string): string {
  return name.replace(INVISIBLE, (ch) => (ch === ' ' ? ch : ch === '\n' ? '\\n' : ch === '\t' ? '\\t' : ch === '\r' ? '\\r' : escapeChar(ch)));
}

/** A payload's text as the page shows it: like {@link shown}, but line breaks, tabs and spaces stay. */
export function shownText(text: string): string {
  return text.replace(INVISIBLE, (ch) => (ch === ' ' || ch === '\n' || ch === '\t' || ch === '\r' ? ch : escapeChar(ch)));
}
