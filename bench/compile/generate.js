#!/usr/bin/env node
// Writes a generated filter list of N lines. Two kinds, both deterministic (seeded), so every run
// of the benchmark compiles the same input:
// - the current bench list (`syntheticLines`): hosts lines, bare domains, `||name^` rules with and
//   without `$third-party`, exceptions, IP rules, comments, blank lines and ~10% duplicates;
// - the realistic list (`realisticLines`): every line shape real lists have (hosts lines of every
//   form, DNS modifiers, cosmetic rules, URL and regex rules, IDN and punycode, upper case,
//   `!#if` blocks, one `!#include`), optionally with CRLF line endings.
// Usage: node bench/compile/generate.js [N] [FILE] [--realistic] [--crlf]
import { writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { domainToASCII } from 'node:url';

function generator(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

export function* syntheticLines(count, seed = 42) {
  const rand = generator(seed);
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

const TLDS = ['com', 'net', 'org', 'io', 'de', 'co.uk', 'ru', 'info', 'fr', 'com.br', 'xyz', 'jp'];
const IDN_ALPHABETS = [
  ['abcdefghilmnorstuäöüß', ['de', 'at', 'com']],
  ['абвгдежзиклмнопрстуфя', ['рф', 'ru', 'com']],
  ['aceilnorsuéèêçàù', ['fr', 'com']],
  ['あいうえおかきくけこさしすせそ', ['jp', 'com']],
];
const PUBLIC_SUFFIXES = ['com', 'co.uk', 'github.io', 'blogspot.com', 'de'];
const DNS_MODIFIERS = [
  'third-party',
  'important',
  'dnstype=A',
  'dnstype=AAAA|~CNAME',
  'badfilter',
  'client=192.168.0.12',
  'client=10.0.0.0/8',
  'ctag=device_pc|device_phone',
  'dnsrewrite=127.0.0.1',
  'important,third-party',
  'all',
];
const SCRIPTLETS = ['abort-on-property-read', 'set-constant', 'prevent-setTimeout', 'remove-attr'];

/** Lines of every shape real lists have; `!#if` blocks at a few places; `include` names one `!#include`. */
export function* realisticLines(count, { seed = 7, include = null } = {}) {
  const rand = generator(seed);
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const word = () => Math.floor(36 ** 2 + rand() * (36 ** 6 - 36 ** 2)).toString(36);
  const host = () => {
    const depth = 1 + Math.floor(rand() * 3);
    const parts = [];
    for (let i = 0; i < depth; i += 1) parts.push(word());
    return `${parts.join('.')}.${pick(TLDS)}`;
  };
  const idn = () => {
    const [letters, tlds] = pick(IDN_ALPHABETS);
    const chars = [...letters];
    let label = '';
    for (let i = 3 + Math.floor(rand() * 6); i > 0; i -= 1) label += pick(chars);
    return `${rand() < 0.3 ? `${word()}.` : ''}${label}.${pick(tlds)}`;
  };
  const ip = () => `${10 + Math.floor(rand() * 200)}.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}.1`;
  const shape = (r) => {
    if (r < 0.12) return `0.0.0.0 ${host()}`;
    if (r < 0.15) return `127.0.0.1 ${host()} ${host()}${rand() < 0.5 ? ` ${host()}` : ''}`;
    if (r < 0.17) return `0.0.0.0\t${host()}${rand() < 0.5 ? `\t${host()}` : ''}`;
    if (r < 0.19) return `0.0.0.0 ${host()} # ${word()} tracker`;
    if (r < 0.2) return rand() < 0.5 ? `::1 ${host()}` : `:: ${host()}`;
    if (r < 0.205) return pick(['127.0.0.1 localhost', '::1 localhost ip6-localhost', '255.255.255.255 broadcasthost']);
    if (r < 0.4) return `||${host()}^`;
    if (r < 0.46) return `||${host()}^$${pick(DNS_MODIFIERS)}`;
    if (r < 0.465) return `||${host()}^$denyallow=${host()}|${host()}`;
    if (r < 0.49) return `@@||${host()}^${rand() < 0.3 ? '$important' : ''}`;
    if (r < 0.57) return host();
    if (r < 0.585) return `${host()}##.ad-${word()}`;
    if (r < 0.595) return `##.banner-${word()}`;
    if (r < 0.6) return `${host()}#@#.sponsored`;
    if (r < 0.605) return `${host()}#$#body { padding-top: 0 !important; }`;
    if (r < 0.61) return `${host()}#%#//scriptlet('${pick(SCRIPTLETS)}', '${word()}')`;
    if (r < 0.625) return `||${host()}/ads/${word()}.js`;
    if (r < 0.635) return `|https://${host()}/track?id=${word()}`;
    if (r < 0.645) return `/banner/*/${word()}.gif$image,domain=${host()}`;
    if (r < 0.655) return `||${host()}^$script,third-party`;
    if (r < 0.66) return `/^ad[sx]?[0-9]*\\.${word()}\\.com$/`;
    if (r < 0.665) return `/${word()}[0-9]+\\.(gif|png)/$third-party`;
    if (r < 0.68) return pick([`||${idn()}^`, `0.0.0.0 ${idn()}`, idn()]);
    if (r < 0.69) return pick([`||${domainToASCII(idn())}^`, `0.0.0.0 ${domainToASCII(idn())}`]);
    if (r < 0.705) return pick([`||${host().toUpperCase()}^`, `0.0.0.0 ${host().toUpperCase()}`, host().toUpperCase()]);
    if (r < 0.715) return `||${ip()}^`;
    if (r < 0.72) return pick([`||${pick(PUBLIC_SUFFIXES)}^`, `0.0.0.0 ${pick(PUBLIC_SUFFIXES)}`]);
    if (r < 0.76) return `! ${word()} ${word()}`;
    if (r < 0.79) return `# ${word()} ${word()}`;
    if (r < 0.8) return '!';
    if (r < 0.82) return '';
    if (r < 0.83) return `  ||${host()}^  `;
    return pick([`||${host()}^`, `0.0.0.0 ${host()}`, host()]);
  };
  const recent = [];
  const line = () => {
    if (rand() < 0.1 && recent.length > 0) return pick(recent);
    const made = shape(rand());
    if (recent.length < 2000) recent.push(made);
    else recent[Math.floor(rand() * 2000)] = made;
    return made;
  };
  const conditions = [
    '(adguard_app_windows || adguard_app_mac)',
    '!adguard_ext_safari',
    'adguard',
    '(adguard && !adguard_ext_firefox)',
    'ext_ublock',
    'adguard_app_android',
  ];
  const blockEvery = Math.floor(count / (conditions.length + 1));
  let emitted = 0;
  let block = 0;
  let included = include === null;
  function* emit(text) {
    emitted += 1;
    yield text;
  }
  while (emitted < count) {
    if (!included && emitted >= count / 2) {
      included = true;
      yield* emit(`!#include ${include}`);
    } else if (blockEvery > 40 && emitted >= blockEvery * (block + 1) && block < conditions.length) {
      block += 1;
      yield* emit(`!#if ${conditions[block - 1]}`);
      for (let i = 0; i < 12; i += 1) yield* emit(line());
      if (block === 3) {
        yield* emit('!#if adguard_app_ios');
        for (let i = 0; i < 4; i += 1) yield* emit(line());
        yield* emit('!#endif');
      }
      if (block % 2 === 1) {
        yield* emit('!#else');
        for (let i = 0; i < 8; i += 1) yield* emit(line());
      }
      yield* emit('!#endif');
    } else yield* emit(line());
  }
}

/**
 * Writes a generated list to `file`: the realistic one (with its `!#include` file written beside it)
 * or the current bench list; CRLF line endings when asked.
 */
export function writeList(file, count, { realistic = false, crlf = false } = {}) {
  const eol = crlf ? '\r\n' : '\n';
  let lines;
  if (realistic) {
    const include = `${basename(file).replace(/\.txt$/, '')}.include.txt`;
    const included = [...realisticLines(60, { seed: 99 })].filter((l) => !l.startsWith('!#'));
    writeFileSync(join(dirname(file), include), `${included.join(eol)}${eol}`);
    lines = realisticLines(count, { include });
  } else lines = syntheticLines(count);
  const chunks = [];
  let buf = [];
  for (const line of lines) {
    buf.push(line);
    if (buf.length === 10_000) {
      chunks.push(`${buf.join(eol)}${eol}`);
      buf = [];
    }
  }
  if (buf.length > 0) chunks.push(`${buf.join(eol)}${eol}`);
  writeFileSync(file, chunks.join(''));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const positional = args.filter((a) => !a.startsWith('--'));
  const count = Number(positional[0] ?? 1_000_000);
  const options = { realistic: args.includes('--realistic'), crlf: args.includes('--crlf') };
  if (positional[1]) writeList(positional[1], count, options);
  else {
    const lines = options.realistic ? realisticLines(count) : syntheticLines(count);
    const eol = options.crlf ? '\r\n' : '\n';
    process.stdout.write(`${[...lines].join(eol)}${eol}`);
  }
}
