// The configurations the compile bench runs besides its generated lists, written into bench/.tmp:
// - `corpus`: every list of ../shared/corpus merged, one source per file, the CONTRACT's set;
// - three of the shapes users compile, written by us after the public configurations they model
//   (none copied): `dns-filter`, a DNS filter built from many sources, each with a shared
//   exclusion file, regex inclusions and its own transformations, plus global exclusions; and two
//   per-filter registry configurations, `registry-hosts` (one hosts list) and `registry-mixed`
//   (a few lists of different syntaxes). Sources are local paths to the corpus lists; exclusion
//   files are drawn from the corpus (deterministic).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

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

/** Writes the four configurations (and their exclusion files) into `tmp`; returns their paths by case name. */
export function writeConfigs(root, tmp) {
  const corpus = resolve(root, '../shared/corpus');
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

  const paths = {};
  for (const [name, config] of Object.entries(configs)) {
    paths[name] = { file: join(tmp, `config-${name}.json`), lines: inputLines(config) };
    writeFileSync(paths[name].file, JSON.stringify(config, null, 2));
  }
  return paths;
}
