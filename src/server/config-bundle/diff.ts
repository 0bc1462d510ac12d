import {
  type Bundle,
  bundleRow,
  canonical,
  type ConfigRecord,
  naturalKey,
  SECTION_NAMES,
  type SectionName,
} from '../store/config-sections.js';

export interface SectionDiff {
  added: ConfigRecord[];
  removed: ConfigRecord[];
  changed: { key: unknown[]; before: ConfigRecord; after: ConfigRecord }[];
  unchanged: number;
}

/** What importing `incoming` over `current` would do, per section, by natural key. */
export function diffBundles(current: Bundle, incoming: Bundle): Record<SectionName, SectionDiff> {
  const out = {} as Record<SectionName, SectionDiff>;
  for (const s of SECTION_NAMES) {
    const d: SectionDiff = { added: [], removed: [], changed: [], unchanged: 0 };
    const now = new Map(current[s].map((r) => [naturalKey(s, r), bundleRow(s, r)]));
    const wanted = new Set<string>();
    for (const raw of incoming[s]) {
      const row = bundleRow(s, raw);
      const key = naturalKey(s, row);
      wanted.add(key);
      const before = now.get(key);
      if (!before || (s === 'announcements' && row.id === null)) d.added.push(row);
      else if (canonical(before) === canonical(row)) d.unchanged += 1;
      else d.changed.push({ key: JSON.parse(key) as unknown[], before, after: row });
    }
    for (const [key, row] of now) if (!wanted.has(key)) d.removed.push(row);
    out[s] = d;
  }
  return out;
}
