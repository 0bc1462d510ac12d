#!/usr/bin/env node
// Writes a synthetic filter list of N lines: hosts lines, bare domains, adblock rules with
// and without modifiers, exceptions, IP rules, comments, blank lines and ~10% duplicates.
// Deterministic (seeded), so every run of the benchmark compiles the same input.
import { createWriteStream } from 'node:fs';

export function* syntheticLines(count, seed = 42) {
  let state = seed >>> 0;
  const rand = () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 4294967296;
  };
  const tlds = ['com', 'net', 'org', 'io', 'de', 'co.uk', 'ru', 'info'];
  const word = () => Math.floor(rand() * 36 ** 5).toString(36);
  const host = () => {
    const depth = 1 + Math.floor(rand() * 3);
    const parts = [];
    for (let i = 0; i < depth; i += 1) parts.push(word());
    return `${parts.join('.')}.${tlds[Math.floor(rand() * tlds.length)]}`;
  };
  const recent = [];
  for (let i = 0; i < count; i += 1) {
    const r = rand();
    let line;
    if (r < 0.1 && recent.length > 0) line = recent[Math.floor(rand() * recent.length)];
    else if (r < 0.35) line = `0.0.0.0 ${host()}`;
    else if (r < 0.5) line = host();
    else if (r < 0.75) line = `||${host()}^`;
    else if (r < 0.8) line = `||${host()}^$third-party`;
    else if (r < 0.83) line = `@@||${host()}^`;
    else if (r < 0.85)
      line = `||${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}.1.${Math.floor(rand() * 256)}^`;
    else if (r < 0.9) line = `! comment ${word()}`;
    else if (r < 0.93) line = `# hosts comment ${word()}`;
    else if (r < 0.95) line = '';
    else if (r < 0.97) line = `  ||${host()}^  `;
    else line = `${host()}##.ad-${word()}`;
    if (recent.length < 1000) recent.push(line);
    else recent[Math.floor(rand() * 1000)] = line;
    yield line;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [count, file] = [Number(process.argv[2] ?? 1_000_000), process.argv[3]];
  const out = file ? createWriteStream(file) : process.stdout;
  let buf = [];
  for (const line of syntheticLines(count)) {
    buf.push(line);
    if (buf.length === 10_000) {
      out.write(`${buf.join('\n')}\n`);
      buf = [];
    }
  }
  out.write(buf.join('\n') + (buf.length ? '\n' : ''));
  if (file) out.end();
}
