/**
 * The output formats, as data: what each writes for a name, what it cannot say, and its header.
 * `write-format.ts` turns a compiled list into any of them through this table alone; a format is
 * one entry here. `adblock` is the list as compiled, byte for byte the reference's output.
 */

export const OUTPUT_FORMATS = ['adblock', 'hosts', 'domains', 'wildcard', 'dnsmasq', 'unbound', 'rpz'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
/** The formats for DNS servers, which `write-format.ts` writes. */
export type DnsFormat = Exclude<OutputFormat, 'adblock'>;

export interface FormatOptions {
  /** The compile time, for the RPZ zone's serial. */
  compiledAt: Date;
  /** The addresses a `hosts` line gives each name, in order. */
  hostsAddresses: readonly string[];
}

export interface FormatSpec {
  readonly name: DnsFormat;
  readonly summary: string;
  /** One line as the format writes `||example.org^` (docs, help). */
  readonly example: string;
  /** What it cannot express (docs, help). */
  readonly cannot: string;
  /** It can block a name with its subdomains; else such a rule is written for the name alone (`format-narrowed`). */
  readonly subdomains: boolean;
  /** It can allow a name and its subdomains in a blocked domain; else `@@` rules are left out (`format-exception`). */
  readonly allow: boolean;
  /** What starts a comment line. */
  readonly comment: string;
  /** Lines before the list (a zone's SOA and NS, a configuration clause). */
  preamble(options: FormatOptions): string[];
  /** The lines for `name`, blocked or allowed (an exception), alone or with its subdomains. */
  lines(name: string, subdomains: boolean, allow: boolean, options: FormatOptions): string[];
  /**
   * What a line answers for (the owner name in a zone, the domain in dnsmasq): lines with the
   * same slot give one name two answers, and only one may stand.
   */
  slot(line: string): string;
}

export const DEFAULT_HOSTS_ADDRESSES: readonly string[] = ['0.0.0.0'];

/** What no DNS format can say: rules that are not about whole domain names. */
const NOT_DOMAINS = 'modifiers, regular expressions, URL patterns, cosmetic rules, hosts lines with other addresses';
const NO_SUBDOMAINS = `subdomains (such a rule is written for its name alone), exceptions, ${NOT_DOMAINS}`;

const noPreamble = () => [];
const itself = (line: string) => line;

/** The SOA serial: the compile time in seconds, which grows with every compile (and SOURCE_DATE_EPOCH pins). */
const serial = (at: Date) => Math.floor(at.getTime() / 1000) % 2 ** 32;

export const FORMATS: Readonly<Record<DnsFormat, FormatSpec>> = {
  hosts: {
    name: 'hosts',
    summary: 'a hosts file: each name with the null address (or the addresses given)',
    example: '0.0.0.0 example.org',
    cannot: NO_SUBDOMAINS,
    subdomains: false,
    allow: false,
    comment: '#',
    preamble: noPreamble,
    lines: (name, _s, _a, o) => o.hostsAddresses.map((address) => `${address} ${name}`),
    slot: itself,
  },
  domains: {
    name: 'domains',
    summary: 'one name a line (Pi-hole and other exact-name lists)',
    example: 'example.org',
    cannot: NO_SUBDOMAINS,
    subdomains: false,
    allow: false,
    comment: '#',
    preamble: noPreamble,
    lines: (name) => [name],
    slot: itself,
  },
  wildcard: {
    name: 'wildcard',
    summary: 'names with DNS wildcards: `*.example.org` for the names under example.org',
    example: 'example.org + *.example.org',
    cannot: `exceptions, ${NOT_DOMAINS}`,
    subdomains: true,
    allow: false,
    comment: '#',
    preamble: noPreamble,
    // A DNS wildcard covers the names under a name, not the name: a rule for both is the pair.
    lines: (name, subdomains) => (subdomains ? [name, `*.${name}`] : [name]),
    slot: itself,
  },
  dnsmasq: {
    name: 'dnsmasq',
    summary: 'dnsmasq configuration (conf-file): NXDOMAIN for a domain and its subdomains',
    example: 'local=/example.org/',
    cannot: `${NOT_DOMAINS}; a name alone is a host-record with the null addresses`,
    subdomains: true,
    allow: true,
    comment: '#',
    preamble: noPreamble,
    lines(name, subdomains, allow) {
      if (allow) return [`server=/${name}/#`];
      return [subdomains ? `local=/${name}/` : `host-record=${name},0.0.0.0,::`];
    },
    // `local=/x/` and `server=/x/#` answer for x; a host-record for its name alone.
    slot: (line) => (line.startsWith('host-record=') ? line : line.slice(line.indexOf('/'), line.lastIndexOf('/') + 1)),
  },
  unbound: {
    name: 'unbound',
    summary: 'unbound configuration (a `server:` clause to include): NXDOMAIN for a domain and its subdomains',
    example: 'local-zone: "example.org." always_nxdomain',
    cannot: `${NOT_DOMAINS}; a name alone is local-data with the null addresses`,
    subdomains: true,
    allow: true,
    comment: '#',
    preamble: () => ['server:'],
    lines(name, subdomains, allow) {
      if (allow) return [`local-zone: "${name}." always_transparent`];
      if (subdomains) return [`local-zone: "${name}." always_nxdomain`];
      return [`local-data: "${name}. A 0.0.0.0"`, `local-data: "${name}. AAAA ::"`];
    },
    // One local-zone a name, whatever its type.
    slot: (line) => (line.startsWith('local-zone:') ? line.slice(0, line.lastIndexOf(' ')) : line),
  },
  rpz: {
    name: 'rpz',
    summary: 'a DNS Response Policy Zone file (BIND, Knot, PowerDNS, unbound): NXDOMAIN',
    example: 'example.org CNAME . + *.example.org CNAME .',
    cannot: NOT_DOMAINS,
    subdomains: true,
    allow: true,
    comment: ';',
    preamble: (o) => [
      '$TTL 300',
      `@ IN SOA localhost. hostmaster.localhost. ${serial(o.compiledAt)} 43200 3600 604800 300`,
      '@ IN NS localhost.',
    ],
    lines(name, subdomains, allow) {
      const target = allow ? 'CNAME rpz-passthru.' : 'CNAME .';
      return subdomains ? [`${name} ${target}`, `*.${name} ${target}`] : [`${name} ${target}`];
    },
    // A CNAME is alone at its owner name.
    slot: (line) => line.slice(0, line.indexOf(' ')),
  },
};
