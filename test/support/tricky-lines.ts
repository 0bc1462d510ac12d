/**
 * Generated filter lists full of the shapes that break compilers: hosts lines in every
 * form, modifiers, IP patterns, IDN, duplicates, comments, odd whitespace. Seeded, so a
 * failure reproduces. Lines on which the reference crashes are left out here and tested
 * as documented divergences instead.
 */
export const TRICKY = {
  hosts: [
    '0.0.0.0 ads.example.com',
    '127.0.0.1 one.example.net two.example.net',
    '0.0.0.0\ttabbed.example.org',
    '0.0.0.0 commented.example.org # trailing comment',
    '0.0.0.0 hashed.example.org#nospace',
    '::1 localhost',
    'fe80::1%lo0 localhost',
    '255.255.255.255 broadcasthost',
    '0.0.0.0 UPPER.Example.COM',
    '0.0.0.0 sub.ads.example.com',
    '0.0.0.0 co.uk',
    '0.0.0.0 1.2.3.4',
    '0.0.0.0 under_score.example.com',
    '1.2.3.4 ip-target.example.com',
    'abc example-hex.com',
    '0.0.0.0 münchen-ads.de',
  ],
  domains: [
    'example.org',
    'sub.example.org',
    'trailing.example.org.',
    'xn--e1afmkfd.xn--p1ai',
    '-bad.example.com',
    'a..b.com',
    'localhost',
    'com',
    'com.',
    'pages.github.io',
    'UPPER.example.ORG',
    'пример.рф',
  ],
  adblock: [
    '||ads.example.com^',
    '||ads.example.com^|',
    '||ads.example.com^$important',
    '||ads.example.com^$third-party,popup',
    '||tracker.example.com^$3p,doc,all,network',
    '@@||ads.example.com^',
    '@@||allowed.example.com^$important',
    '||*.org^',
    '||*.example.org^',
    '||*.co.uk^$important',
    '.org^',
    '*.org^',
    '||org^',
    '||org^$denyallow=example.org',
    '||ads.example.com^abc',
    '||ads.example.com^*',
    '|http://ads.example.com',
    '://ads.example.com^',
    'ads.example.com^',
    '/banner[0-9]+/',
    '/^ads\\./$domain=example.com',
    '||rewrite.example.com^$dnsrewrite=NOERROR;A;1.2.3.4',
    '||client.example.com^$client=127.0.0.1',
    '||ctag.example.com^$ctag=device_pc',
    '||domains.example.com^$domain=a.com\\,b.com',
    '||remove.example.com^$removeparam=a=b',
    '||dollar.example.com^$',
    '||ads.example.com^$media,~important',
    'example.com##.ad-banner',
    'example.com#$#body { color: red }',
    'example.com#@#.ad',
    '##.ad',
    '||ünicode.example.com^',
    '||*.пример.рф^$important',
    'пример.рф##.ad',
    '||a.b^',
    '||ab^',
    'abc',
    '|',
    '||',
    '$',
    '*',
    '^',
    '||x.com^$badfilter',
    '||x.com^$dnstype=AAAA',
  ],
  ip: [
    '||1.2.3.4^',
    '1.2.3.4',
    '1.2.3.4^',
    '|1.2.3.4^',
    '||1.2.3.4^|',
    '||1.2.3.^',
    '192.168.1.',
    '192.168.1.*',
    '||192.168.1.',
    '||192.168.1.*',
    '|192.168.1.',
    '||1.2^',
    '1.2.',
    '10.0.0',
    '1.1^',
    '@@||1.2.3.4^$important',
    '||1.2.3.4^$denyallow=a.com',
    '||1.2.3.4^$third-party',
    '999.1.1.1',
    '||1.2.3.4.^',
  ],
  comments: ['! comment', '# hosts comment', '#', '####', '#not-a-comment', '!', '! Title: x', '#@#.not-comment'],
  whitespace: [
    '  ||padded.example.com^  ',
    '\t||tab.example.com^',
    '   ',
    '\t',
    ' ! indented comment',
    '# ',
    'ads.example.com ',
  ],
  constructorish: ['||toString.example^'],
};

export const ALL_TRICKY = Object.values(TRICKY).flat();

/** A seeded random list of `count` lines drawn from the tricky shapes (so with many duplicates). */
export function trickyList(count: number, seed: number, eol = '\n'): string {
  let state = seed >>> 0;
  const rand = () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 4294967296;
  };
  const lines: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const pick = ALL_TRICKY[Math.floor(rand() * ALL_TRICKY.length)];
    // Vary hostnames a little so that Compress and Deduplicate see partial overlaps.
    lines.push(rand() < 0.3 ? pick.replace('example', `ex${Math.floor(rand() * 5)}`) : pick);
  }
  return lines.join(eol);
}
