// The configurations the compile bench runs besides its generated lists, written into bench/.tmp:
// - `corpus`: every list of the corpus (FLC_CORPUS) merged, one source per file, the CONTRACT's set;
// - the shapes users compile, written by us after the public configurations they model (none
//   copied): `dns-filter`, a DNS filter built from many sources, each with a shared exclusion
//   file, regex inclusions and its own transformations, plus global exclusions; two per-filter
//   registry configurations, `registry-hosts` (one hosts list) and `registry-mixed` (a few lists
//   of different syntaxes); `regex-exclusions` (120 sources, ~40 list-level regex exclusions,
//   several with look-aheads, and `inclusions: ["*"]`), `regex-inclusion` (15 sources, one regex
//   inclusion) and `allow-ip` (57 sources, each with its own exclusion file, ValidateAllowIp),
//   the shapes of the large configurations maintainers run. Sources are local paths to the
//   corpus lists, or slices of them written beside the configurations (many small lists);
//   exclusion files are drawn from the corpus (deterministic).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpusDir } from '../corpus.js';

export const CONTRACT_TRANSFORMATIONS = [
  'RemoveComments',
  'Compress',
  'Validate',
  'Deduplicate',
  'RemoveEmptyLines',
  'TrimLines',
  'InsertFinalNewLine',
];

const HOSTS_SYNTAX = new Set(['hosts-hagezi-light.txt', 'domains-hagezi-light.txt', 'urlhaus-filter-online.txt']);
const DNS_RULE = '/^\\|\\|[^\\/$^]+\\^$/';
const DNS_EXCEPTION = '/^@@\\|\\|[^\\/$^]+\\^(\\$important)?$/';
const DNS_RULE_WITH_MODIFIERS = '/^\\|\\|[^\\/$^]+\\^\\$(third-party|important|all)$/';

const lines = (file) => readFileSync(file, 'utf8').split(/[\r\n]+/);

/** Lines of the input files of a configuration, as the loader counts them (blank lines vanish). */
export function inputLines(config) {
  const sources = config.sources.map((s) => s.source);
  return sources.reduce((n, file) => n + lines(file).filter((l) => l.trim() !== '').length, 0);
}

function corpusNames(corpus) {
  const plain = lines(join(corpus, 'domains-hagezi-light.txt')).filter((l) => l !== '' && !l.startsWith('#'));
  const dns = lines(join(corpus, 'adguard-dns-filter-2019.txt'))
    .filter((l) => /^\|\|[^/$^]+\^$/.test(l))
    .map((l) => l.slice(2, -1));
  return { plain, dns };
}

/** Every `step`-th item from `offset`, `count` of them. */
const every = (xs, count, step, offset) => Array.from({ length: count }, (_, i) => xs[(offset + i * step) % xs.length]);
const escapeRegex = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

function exclusionFile(file, names, { rules, plain, globs, regexes, offset }) {
  const out = ['! Exclusions: names that must stay resolvable', '! Generated from the corpus', ''];
  for (const name of every(names.dns, rules, 7, offset)) out.push(`||${name}^`);
  out.push('# plain names (substring match)');
  for (const name of every(names.plain, plain, 53, offset)) out.push(name);
  out.push('');
  for (const [i, name] of every(names.plain, globs, 97, offset + 11).entries())
    out.push(i % 2 === 0 ? `*.${name}^` : `*${name.split('.').slice(-2).join('.')}*`);
  for (const [i, name] of every(names.dns, regexes, 211, offset + 5).entries())
    out.push(
      i % 2 === 0
        ? `/^\\|\\|([a-z0-9-]+\\.)*${escapeRegex(name)}\\^/`
        : `/^(\\|\\||0\\.0\\.0\\.0 )?${escapeRegex(name.split('.')[0])}[0-9]*\\./`,
    );
  writeFileSync(file, `${out.join('\n')}\n`);
  return file;
}

/**
 * The corpus lists cut into `count` slices of consecutive lines (LF), written into `tmp` as
 * `<prefix>-<list>-<k>.txt`: the many small lists of a configuration with a hundred sources. Each
 * list gives at least one slice (when `count` allows), the longer lists more. Returns their paths.
 */
function sliceFiles(corpus, tmp, files, count, prefix) {
  const all = files.map((f) => ({ name: f.replace(/\.txt$/, ''), lines: lines(join(corpus, f)) }));
  const total = all.reduce((n, f) => n + f.lines.length, 0);
  const parts = all.map((f) => Math.max(1, Math.floor((count * f.lines.length) / total)));
  const per = (i) => all[i].lines.length / parts[i];
  for (let left = count - parts.reduce((a, b) => a + b, 0); left !== 0; left += left > 0 ? -1 : 1) {
    const cut = parts.map((_, i) => i).filter((i) => left > 0 || parts[i] > 1);
    const pick = cut.reduce((w, i) => ((left > 0 ? per(i) > per(w) : per(i) < per(w)) ? i : w), cut[0]);
    parts[pick] += left > 0 ? 1 : -1;
  }
  return all.flatMap(({ name, lines: ls }, i) => {
    const size = Math.ceil(ls.length / parts[i]);
    return Array.from({ length: parts[i] }, (_, k) => {
      const file = join(tmp, `${prefix}-${name}-${k}.txt`);
      writeFileSync(file, `${ls.slice(k * size, (k + 1) * size).join('\n')}\n`);
      return file;
    });
  });
}

/**
 * Forty regular expressions of the kinds DNS list maintainers exclude with: anchored shapes
 * (comments, exceptions, regex and cosmetic rules, IP rules), look-aheads (`/(?!^(\|\||@@\|\|))^.+/`,
 * modifiers other than `important`), and unanchored names and separators.
 */
export const REGEX_EXCLUSIONS = [
  '/^@@/',
  '/(?!^(\\|\\||@@\\|\\|))^.+/',
  '/^!/',
  '/^#/',
  '/^\\/.*\\/$/',
  '/#[@$?%]?#/',
  '/#\\$\\?#|#@\\$#|#%#/',
  '/##\\+js\\(/',
  '/:\\/\\//',
  '/^\\|\\|[0-9.]+\\^/',
  '/^\\|\\|[^\\^]*\\*/',
  '/\\$(?!important$)(?!important,)[a-z~]/',
  '/\\^(?!$)(?!\\$)(?!\\|$)/',
  '/\\$.*(?:domain|denyallow)=/',
  '/\\.(?:local|localhost|lan|home|internal|arpa)\\^/',
  '/\\.(?:onion|i2p|bit)\\^/',
  '/^\\|\\|(?:[a-z0-9-]+\\.)*(?:google|youtube|gstatic|googleapis)\\.com\\^/',
  '/^\\|\\|(?:[a-z0-9-]+\\.)*(?:apple|icloud|microsoft|windows|office)\\.com\\^/',
  '/^\\|\\|(?:[a-z0-9-]+\\.)*(?:github|githubusercontent|gitlab)\\.(?:com|io)\\^/',
  '/^\\|\\|(?:www\\.)?(?:paypal|amazon|ebay|netflix|spotify)\\.[a-z.]+\\^/',
  '/^\\|\\|[a-z0-9-]+\\^/',
  '/^\\|\\|[^.]+\\.[a-z]{2,3}\\.[a-z]{2}\\^$/',
  '/(?<=\\.)(?:cdn|static|assets)[0-9]*\\.(?:cloudflare|akamai|fastly)/',
  '/\\b(?:whatsapp|telegram|signal)\\b/',
  '/^\\|\\|.{64,}\\^/',
  '/^\\|\\|(?=[^^]*--)/',
  '/^\\|\\|xn--/',
  '/[^\\x00-\\x7f]/',
  '/\\$badfilter/',
  '/\\$(?:csp|redirect|removeparam|replace)/',
  '/^\\|\\|[^\\^]+\\^\\|$/',
  '/\\^\\$(?:third-party|3p|1p|first-party)$/',
  '/^(?:0\\.0\\.0\\.0|127\\.0\\.0\\.1) /',
  '/^\\|\\|(?:[a-z0-9-]+\\.)*(?:bank|banking|gov|edu)\\.[a-z.]+\\^/',
  '/^\\|\\|.*(?:login|auth|sso|accounts?)\\./',
  '/^\\|\\|(?!.*\\.)/',
  '/^[^|@].*\\^$/',
  '/(?:^|\\.)(?:localhost|broadcasthost)\\^?$/',
  '/\\|\\|(?:[a-z0-9-]+\\.)?(?:ocsp|crl|pki)\\./',
  '/^\\|\\|[a-z0-9.-]*(?:captive|connectivity|msftncsi|nmcheck)/',
];

/** Writes the configurations (and their exclusion files) into `tmp`; returns their paths by case name. */
export function writeConfigs(tmp) {
  const corpus = corpusDir();
  const at = (file) => join(corpus, file);
  const names = corpusNames(corpus);
  const files = readdirSync(corpus)
    .filter((f) => f.endsWith('.txt'))
    .sort();
  const configs = {};

  configs.corpus = {
    name: 'Corpus, merged',
    sources: files.map((f) => ({ name: f, source: at(f), type: HOSTS_SYNTAX.has(f) ? 'hosts' : 'adblock' })),
    transformations: CONTRACT_TRANSFORMATIONS,
  };

  const shared = exclusionFile(join(tmp, 'exclusions-shared.txt'), names, {
    rules: 600,
    plain: 300,
    globs: 80,
    regexes: 20,
    offset: 0,
  });
  const globalExclusions = exclusionFile(join(tmp, 'exclusions-global.txt'), names, {
    rules: 300,
    plain: 100,
    globs: 20,
    regexes: 6,
    offset: 3,
  });
  // Many small sources cut into DNS-level rules, a few large domain lists, as a DNS filter is
  // built: per-source exclusions, inclusions and transformations; global exclusions last.
  const dnsSources = [];
  const slices = ['0-9', 'a-c', 'd-f', 'g-i', 'j-m', 'n-q', 'r-t', 'u-z'];
  const transformations = () => (dnsSources.length % 3 === 0 ? ['RemoveModifiers', 'Validate'] : ['Validate']);
  for (const list of ['easylist-germany.txt', 'ubo-privacy.txt', 'ubo-unbreak.txt', 'ubo-quick-fixes.txt']) {
    for (const slice of slices) {
      dnsSources.push({
        name: `${list} [${slice}]`,
        source: at(list),
        type: 'adblock',
        transformations: transformations(),
        exclusions_sources: [shared],
        inclusions: [`/^(@@)?\\|\\|[${slice}][^\\/$^]*\\^(\\$(important|third-party))?$/`],
      });
    }
  }
  for (const slice of slices) {
    dnsSources.push({
      name: `malware hostnames [${slice}]`,
      source: at('urlhaus-filter-online.txt'),
      type: 'hosts',
      transformations: ['RemoveComments', 'Compress', 'Validate'],
      exclusions_sources: [shared],
      inclusions: [`/^[${slice}]/`],
      exclusions: ['/^[0-9.]+$/'],
    });
  }
  const wholeLists = [
    ['adguard-dns-filter-2019.txt', [DNS_RULE]],
    ['adguard-dns-filter-2019.txt', [DNS_EXCEPTION]],
    ['adguard-dns-filter-2019.txt', [DNS_RULE_WITH_MODIFIERS]],
    ['easylist.txt', [DNS_RULE, DNS_EXCEPTION]],
    ['ubo-filters.txt', [DNS_RULE, DNS_EXCEPTION, DNS_RULE_WITH_MODIFIERS]],
    ['adblock-hagezi-light.txt', [DNS_RULE]],
  ];
  for (const [list, inclusions] of wholeLists) {
    dnsSources.push({
      name: list,
      source: at(list),
      type: 'adblock',
      transformations: transformations(),
      exclusions_sources: [shared],
      inclusions,
    });
  }
  dnsSources.push(
    {
      name: 'hosts list',
      source: at('hosts-hagezi-light.txt'),
      type: 'hosts',
      transformations: ['RemoveComments', 'Compress', 'Validate'],
    },
    {
      name: 'AdGuard Base, network rules',
      source: at('adguard-base.txt'),
      type: 'adblock',
      transformations: ['RemoveModifiers', 'Validate'],
      inclusions: [DNS_RULE],
    },
  );
  configs['dns-filter'] = {
    name: 'DNS filter',
    description: 'Ad, tracker and malware domains for DNS-level blocking',
    homepage: 'https://example.org/dns-filter',
    license: 'https://example.org/dns-filter/LICENSE',
    sources: dnsSources,
    transformations: ['Deduplicate', 'RemoveEmptyLines', 'TrimLines', 'InsertFinalNewLine'],
    exclusions_sources: [globalExclusions],
    exclusions: ['||example.org^', 'localhost'],
  };

  const registryExclusions = exclusionFile(join(tmp, 'exclusions-registry.txt'), names, {
    rules: 400,
    plain: 400,
    globs: 40,
    regexes: 10,
    offset: 17,
  });
  configs['registry-hosts'] = {
    name: 'Light DNS blocklist (hosts)',
    description: 'One hosts list converted to adblock syntax',
    homepage: 'https://example.org/hosts',
    license: 'https://unlicense.org/',
    sources: [{ source: at('hosts-hagezi-light.txt'), type: 'hosts', transformations: ['RemoveComments', 'Compress'] }],
    transformations: ['Validate', 'Deduplicate', 'RemoveEmptyLines', 'TrimLines', 'InsertFinalNewLine'],
    exclusions_sources: [registryExclusions],
  };
  configs['registry-mixed'] = {
    name: 'Mixed blocklist',
    description: 'A few lists of different syntaxes',
    sources: [
      { name: 'domains', source: at('domains-hagezi-light.txt'), type: 'hosts' },
      {
        name: 'DNS filter 2019',
        source: at('adguard-dns-filter-2019.txt'),
        type: 'adblock',
        exclusions_sources: [registryExclusions],
      },
      { name: 'malware', source: at('urlhaus-filter-online.txt'), type: 'hosts', inclusions: ['/[a-z]/'] },
    ],
    transformations: [
      'RemoveComments',
      'ConvertToAscii',
      'Compress',
      'Validate',
      'Deduplicate',
      'RemoveEmptyLines',
      'InsertFinalNewLine',
    ],
    exclusions_sources: [registryExclusions],
  };

  // Many sources and ~40 list-level regex exclusions, then every line included: the shape of a
  // DNS list that keeps only `||name^` rules from a hundred lists of every syntax.
  const many = sliceFiles(corpus, tmp, files, 120, 'many');
  configs['regex-exclusions'] = {
    name: 'DNS rules from many lists',
    description: 'Network rules of a hundred lists, cut to DNS rules by regular expressions',
    sources: many.map((file, i) => ({
      name: `list ${i + 1}`,
      source: file,
      type: file.includes('hagezi') && !file.includes('adblock') ? 'hosts' : 'adblock',
    })),
    transformations: [
      'RemoveComments',
      'TrimLines',
      'Validate',
      'Deduplicate',
      'RemoveEmptyLines',
      'InsertFinalNewLine',
    ],
    exclusions: [...REGEX_EXCLUSIONS, 'localhost', '||example.org^'],
    inclusions: ['*'],
  };

  // A few lists of every syntax, one regex inclusion keeping the DNS-level rules.
  configs['regex-inclusion'] = {
    name: 'DNS rules from a few lists',
    sources: [...files, ...files.slice(0, 3)].map((f, i) => ({ name: `${f} ${i}`, source: at(f) })),
    transformations: ['RemoveComments', 'Compress', 'Validate', 'Deduplicate', 'InsertFinalNewLine'],
    inclusions: ['/^(?![!#])(?!.*#[@$?%]?#)(@@)?\\|\\|[^\\/\\s]+\\^(\\$[a-z~,-]+)?$/'],
  };

  // Shaped like the AdGuard DNS filter's configuration: 57 sources, each with its own exclusion
  // file and the shared one, source-level RemoveModifiers or Compress, and ValidateAllowIp.
  const allowIpShared = exclusionFile(join(tmp, 'exclusions-allow-ip.txt'), names, {
    rules: 150,
    plain: 60,
    globs: 10,
    regexes: 4,
    offset: 7,
  });
  // DNS-level lists and a few browser lists, as that filter draws on (the four largest corpus
  // lists but one left out, so the reference's run stays within minutes).
  const largest = ['adguard-base.txt', 'easylist.txt', 'hosts-hagezi-light.txt'];
  const dnsFiles = files.filter((f) => !largest.includes(f));
  const allowIpSources = sliceFiles(corpus, tmp, dnsFiles, 57, 'dns').map((file, i) => {
    const own = exclusionFile(join(tmp, `exclusions-allow-ip-${i}.txt`), names, {
      rules: 12,
      plain: 6,
      globs: 2,
      regexes: 1,
      offset: 31 * i,
    });
    const hosts = file.includes('hagezi') && !file.includes('adblock');
    return {
      name: `source ${i + 1}`,
      source: file,
      type: hosts ? 'hosts' : 'adblock',
      transformations: hosts
        ? ['RemoveComments', 'Compress', 'ValidateAllowIp']
        : ['RemoveModifiers', 'ValidateAllowIp'],
      exclusions_sources: [own, allowIpShared],
    };
  });
  configs['allow-ip'] = {
    name: 'DNS filter (ValidateAllowIp)',
    description: 'Many sources with exclusion files, validated keeping IP rules',
    sources: allowIpSources,
    transformations: ['Deduplicate', 'RemoveEmptyLines', 'TrimLines', 'InsertFinalNewLine'],
    exclusions_sources: [globalExclusions],
  };

  const paths = {};
  for (const [name, config] of Object.entries(configs)) {
    paths[name] = { file: join(tmp, `config-${name}.json`), lines: inputLines(config) };
    writeFileSync(paths[name].file, JSON.stringify(config, null, 2));
  }
  return paths;
}
