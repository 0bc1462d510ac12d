/** Ages as the publishing options write them: `90s`, `30m`, `36h`, `7d`, or bare seconds. */

const UNITS = new Map([
  ['s', 1_000],
  ['m', 60_000],
  ['h', 3_600_000],
  ['d', 86_400_000],
]);

/** Milliseconds of `text`, or null when it is not an age. */
export function parseAge(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*([smhd]?)$/.exec(text.trim());
  if (!m) return null;
  return Number(m[1]) * UNITS.get(m[2] || 's')!;
}

/** `3 d 4 h`, `2 h 5 min`, `40 s`: the two largest units of an age. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const min = Math.floor((s % 3600) / 60);
  if (d > 0) return h > 0 ? `${d} d ${h} h` : `${d} d`;
  if (h > 0) return min > 0 ? `${h} h ${min} min` : `${h} h`;
  if (min > 0) return `${min} min`;
  return `${s} s`;
}
