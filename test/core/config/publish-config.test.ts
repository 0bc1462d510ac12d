import { describe, expect, test } from 'vitest';
import { validateConfiguration } from '../../../src/core/config/parse.js';
import { ConfigError } from '../../../src/core/errors/index.js';

const base = { name: 'L', sources: [{ source: 'a.txt' }] };

const issues = (raw: unknown) => {
  try {
    validateConfiguration(raw);
  } catch (e) {
    if (e instanceof ConfigError) return e.issues.map((i) => `${i.path}: ${i.message}`);
    throw e;
  }
  return [];
};

describe('the publishing keys of the configuration', () => {
  test('what describes the list is accepted', () => {
    const config = {
      ...base,
      onSourceError: 'stale',
      maxStale: '3d',
      publish: {
        diffPatches: { name: 'my_list.v1', resolution: 'm', expiry: 60, keep: '7d', checksum: true },
        maxShrink: 20,
        minRules: 1000,
        checkDns: { recheckAfter: 86400 },
      },
    };
    expect(issues(config)).toEqual([]);
    expect(issues({ ...base, publish: { checkDns: true } })).toEqual([]);
  });

  test('bad values are named; what describes the machine is not a key', () => {
    expect(issues({ ...base, maxStale: '3 weeks' })).toEqual([
      'maxStale: "3 weeks" is not an age (write 90s, 30m, 36h, 7d or seconds)',
    ]);
    expect(issues({ ...base, publish: { diffPatches: { name: 'my list' } } })[0]).toContain(
      'publish.diffPatches.name: must be 1-64 letters, digits, "_" and "."',
    );
    expect(issues({ ...base, publish: { maxShrink: 150 } })[0]).toMatch(/^publish\.maxShrink: /);
    expect(issues({ ...base, publish: { dnsServer: '1.1.1.1' } })[0]).toMatch(/^publish: .*dnsServer/);
    expect(issues({ ...base, publish: { diffPatches: { dir: 'patches' } } })[0]).toMatch(/dir/);
  });
});
