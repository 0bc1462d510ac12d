import { describe, expect, test } from 'vitest';
import { validateRule } from '../../../src/core/ast/validate-rule.js';
import { RuleParser } from '@adguard/agtree';
import { PARSER_OPTIONS, parseRule } from '../../../src/core/ast/parse-rule.js';
import { InputError } from '../../../src/core/errors/index.js';
import { CORPUS, describeCorpus, readCorpus, testCorpus } from '../../support/corpus.js';

const corpus = (file: string) => readCorpus(file).split(/\r?\n/);
/** The first line of a corpus list that satisfies `pick`, so the table uses real rules ('' without one). */
const from = (file: string, pick: (l: string) => boolean) => {
  if (CORPUS === null) return '';
  const line = corpus(file).find(pick);
  if (!line) throw new Error(`no such line in ${file}`);
  return line;
};

describeCorpus('validateRule, rules from every dialect in the corpus', () => {
  const cases: [string, string, string, string, string][] = [
    [
      'AdGuard scriptlet',
      from('adguard-base.txt', (l) => !l.startsWith('!') && l.includes('#%#//scriptlet(')),
      'ScriptletInjectionRule',
      'Cosmetic',
      'AdGuard',
    ],
    [
      'AdGuard CSS injection',
      from('adguard-base.txt', (l) => l.includes('#$#') && l.includes('{')),
      'CssInjectionRule',
      'Cosmetic',
      'AdGuard',
    ],
    ['AdGuard hint', from('adguard-base.txt', (l) => l.startsWith('!+ ')), 'HintCommentRule', 'Comment', 'AdGuard'],
    [
      'AdGuard redirect',
      from('adguard-base.txt', (l) => l.includes('$') && l.includes('redirect=') && !l.includes('#')),
      'NetworkRule',
      'Network',
      'Common',
    ],
    [
      'uBO scriptlet',
      from('ubo-filters.txt', (l) => l.includes('##+js(')),
      'ScriptletInjectionRule',
      'Cosmetic',
      'UblockOrigin',
    ],
    [
      'uBO HTML filter',
      from('ubo-filters.txt', (l) => l.includes('##^')),
      'HtmlFilteringRule',
      'Cosmetic',
      'UblockOrigin',
    ],
    [
      'uBO preprocessor',
      from('ubo-filters.txt', (l) => l.startsWith('!#if ')),
      'PreProcessorCommentRule',
      'Comment',
      'Common',
    ],
    ['ABP agent', from('easylist.txt', (l) => l.startsWith('[Adblock Plus')), 'AgentCommentRule', 'Comment', 'Common'],
    ['ABP extended CSS', from('easylist.txt', (l) => l.includes('#?#')), 'ElementHidingRule', 'Cosmetic', 'Common'],
    ['ABP metadata', from('easylist.txt', (l) => l.startsWith('! Title:')), 'MetadataCommentRule', 'Comment', 'Common'],
    [
      'EasyList network',
      from('easylist.txt', (l) => l.startsWith('||') && l.includes('$third-party')),
      'NetworkRule',
      'Network',
      'Common',
    ],
    [
      'element hiding',
      from('easylist.txt', (l) => /^[a-z0-9.,-]+##\.[a-z]/.test(l)),
      'ElementHidingRule',
      'Cosmetic',
      'Common',
    ],
    ['hosts line', from('hosts-hagezi-light.txt', (l) => l.startsWith('0.0.0.0 ')), 'HostRule', 'Network', 'Common'],
    ['DNS adblock', from('adguard-dns-filter-2019.txt', (l) => l.startsWith('||')), 'NetworkRule', 'Network', 'Common'],
    [
      'DNS exception',
      from('adguard-dns-filter-2019.txt', (l) => l.startsWith('@@||')),
      'NetworkRule',
      'Network',
      'Common',
    ],
    ['comment', from('easylist.txt', (l) => l.startsWith('! Please report')), 'CommentRule', 'Comment', 'Common'],
    ['hosts comment', '# comment', 'CommentRule', 'Comment', 'Common'],
    ['AdGuard DNS modifier', '||example.com^$dnsrewrite=NOERROR;A;1.2.3.4', 'NetworkRule', 'Network', 'AdGuard'],
    ['uBO-only modifier', '||example.com^$redirect-rule=noopjs', 'NetworkRule', 'Network', 'Common'],
    ['empty', '   ', 'EmptyRule', 'Empty', 'Common'],
  ];

  test.each(cases)('%s: %s', (_name, rule, ruleType, category, syntax) => {
    const result = validateRule({ rule });
    expect(result).toMatchObject({ success: true, valid: true, rule, ruleType, category, syntax });
    expect(result.duration).toMatch(/^\d+ms$/);
    if (result.valid) expect(result.ast.type).toBe(ruleType);
  });

  test.each([
    ['example.com##', 'Empty rule body'],
    ['||a.com^$domain=', 'Modifier value cannot be empty'],
  ])('invalid in tolerant mode: %s', (rule, error) => {
    expect(validateRule({ rule })).toEqual({
      success: true,
      valid: false,
      rule,
      ruleType: 'InvalidRule',
      error,
      duration: expect.stringMatching(/ms$/),
      validators: expect.objectContaining({ Validate: expect.objectContaining({ kept: false }) }),
    });
  });
});

describe('strict mode', () => {
  test.each([
    ['||a.com^$unknownmodifier', /Non-existent modifier: 'unknownmodifier'/],
    ['/ads[0-9/', /Invalid regular expression/],
    ['||a .com^', /contains whitespace/],
    ['||', /empty or matches everything/],
    ['|', /empty or matches everything/],
    ['*$script', /empty or matches everything/],
    ['||a.com^$domain=exa mple.com', /Invalid domain|domain/i],
    ['||a.com^$domain=-bad.com', /-bad\.com/],
    ['bad..domain##.ad', /Invalid domain 'bad..domain'/],
    ['||a.com^$dnstype=BOGUS', /Unknown DNS record type 'BOGUS'/],
    ['||a.com^$ctag=device_toaster', /Unknown client tag 'device_toaster'/],
    ['||a.com^$dnsrewrite=WHAT;A;1.2.3.4', /Invalid \$dnsrewrite value/],
  ])('rejects %s', (rule, message) => {
    const tolerant = validateRule({ rule });
    const strict = validateRule({ rule, strict: true });
    expect(strict.valid).toBe(false);
    if (!strict.valid) expect(strict.error).toMatch(message);
    expect(tolerant.valid || rule === '||a.com^$domain=exa mple.com').toBe(true);
  });

  test.each([
    '||example.com^$third-party,important',
    '||example.com^$dnsrewrite=NOERROR;A;1.2.3.4',
    '||example.com^$dnstype=AAAA|~A,client=127.0.0.1,ctag=device_pc|os_android',
    '@@||example.com^$domain=a.com|~b.com|*.c.com|d.*',
    '/^https?:\\/\\/ads\\./$script',
    'example.com,~sub.example.com##.ad',
    '0.0.0.0 example.com',
    '! comment',
  ])('accepts %s', (rule) => {
    expect(validateRule({ rule, strict: true })).toMatchObject({ valid: true });
  });
});

describe('testUrl, hostname only', () => {
  test.each([
    ['||example.com^', 'https://example.com/path?q=1', true, undefined],
    ['||example.com^', 'https://sub.example.com/', true, undefined],
    ['||example.com^', 'https://notexample.com/', false, undefined],
    ['||example.com^', 'https://example.com.evil.net/', false, undefined],
    ['0.0.0.0 ads.example.com', 'http://ads.example.com:8080/x', true, undefined],
    ['0.0.0.0 ads.example.com', 'http://sub.ads.example.com/', false, undefined],
    ['0.0.0.0 пример.рф', 'https://xn--e1afmkfd.xn--p1ai/', true, undefined],
    ['||пример.рф^', 'https://пример.рф/', true, undefined],
    ['||ads*.example.com^', 'https://ads3.example.com/', true, undefined],
    ['/^https:\\/\\/ads[0-9]+\\./', 'https://ads12.example.com/', true, undefined],
    ['/^https:\\/\\/ads[0-9]+\\./', 'https://www.example.com/', false, undefined],
    ['||EXAMPLE.com^$match-case', 'https://example.com/', false, undefined],
    ['EXAMPLE', 'https://example.com/', true, undefined],
    ['@@||example.com^', 'https://example.com/', true, true],
    ['||example.com^$third-party,script', 'https://example.com/', true, undefined],
  ])('%s against %s -> %s', (rule, testUrl, matchResult, exception) => {
    const result = validateRule({ rule, testUrl });
    expect(result).toMatchObject({ valid: true, testUrl, matchResult });
    if (exception) expect(result).toMatchObject({ exception: true });
  });

  test('context-dependent modifiers are reported, not guessed', () => {
    expect(
      validateRule({ rule: '||example.com^$third-party,script,domain=a.com', testUrl: 'https://example.com/' }),
    ).toMatchObject({
      matchResult: true,
      dependsOn: ['third-party', 'script', 'domain'],
    });
  });

  test.each(['example.com##.ad', 'example.com#%#//scriptlet("x")', '! comment', 'example.com##+js(aopr, x)'])(
    'no matchResult for %s',
    (rule) => {
      const result = validateRule({ rule, testUrl: 'https://example.com/' });
      expect(result.valid).toBe(true);
      expect(result).not.toHaveProperty('matchResult');
    },
  );
});

describe('bad requests', () => {
  test.each([
    [{ rule: '' }, 'rule must not be empty'],
    [{ rule: '||a^', testUrl: 'not a url' }, 'testUrl must be a valid URL'],
    [{ rule: '', testUrl: 'x' }, 'rule must not be empty; testUrl must be a valid URL'],
    [{}, 'rule must be a string'],
    [{ rule: '||a^', strict: 'yes' }, 'strict must be a boolean'],
  ])('%j -> %s', (request, message) => {
    expect(() => validateRule(request)).toThrow(InputError);
    expect(() => validateRule(request)).toThrow(message);
  });
});

describe('host-rule classification', () => {
  testCorpus('parsing with host rules only for candidate lines equals parsing every line with them', () => {
    const lines = [
      'hosts-hagezi-light.txt',
      'urlhaus-filter-online.txt',
      'easylist.txt',
      'adguard-base.txt',
      'ubo-filters.txt',
      'domains-hagezi-light.txt',
    ].flatMap((f) => corpus(f).filter((_, i) => i % 17 === 0));
    const everyLine = { ...PARSER_OPTIONS, tolerant: true, parseHostRules: true };
    for (const line of lines) expect(parseRule(line), line).toEqual(RuleParser.parse(line, everyLine));
  });
});
