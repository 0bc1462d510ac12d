import { describe, expect, test } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { runCli } from '../support/cli.js';
import { validateRule } from '../../src/core/ast/validate-rule.js';
import { walkAst } from '../../src/core/ast/walk.js';

const BIN = resolve(import.meta.dirname, '../../bin/run.js');
const FIXTURE = resolve(import.meta.dirname, '../fixtures/walk/all-node-types.txt');
const withoutDuration = (o: Record<string, unknown>) => ({ ...o, duration: 'x' });

/** Runs flc with `first` written to its standard input at once, and `last` written `delay` ms later to close it. */
async function piped(args: string[], first: string, last: string, delay: number) {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = new Promise<number | null>((done) => child.on('close', done));
  child.stdin.write(first);
  setTimeout(() => child.stdin.end(last), delay);
  return { code: await code, stdout, stderr };
}

describe('flc validate-rule', () => {
  test.each([
    [['||example.com^$third-party'], 0, /^valid {2}NetworkRule \(Network, Common\)/],
    [['example.com##'], 1, /^invalid {2}InvalidRule: Empty rule body/],
    [['||a.com^$frobnicate', '--strict'], 1, /Non-existent modifier: 'frobnicate'/],
    [['||a.com^$frobnicate'], 0, /^valid/],
    [['||example.com^', '--test-url', 'https://ads.example.com/x'], 0, /match {2}yes for ads\.example\.com/],
    [['example.com##.ad', '--test-url', 'https://example.com'], 0, /match {2}not applicable to a cosmetic rule/],
  ])('%j exits %i', async (args, code, output) => {
    const result = await runCli(['validate-rule', ...args]);
    expect(result.code).toBe(code);
    expect(result.stdout).toMatch(output);
  });

  test.each([
    [['validate-rule', ''], /rule must not be empty/],
    [['validate-rule', '||a^', '--test-url', 'nope'], /testUrl must be a valid URL/],
    // One line for the missing argument, its name and help on it, not a second "Error:" line.
    [
      ['validate-rule'],
      /^Error: Missing 1 required arg: rule, the rule \(quote it for the shell\)\. See "flc validate-rule --help"\.$/m,
    ],
    [['validate-rule', '||a^', '--bogus'], /Nonexistent flag/],
  ])('usage errors exit 2: %j', async (args, message) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/^Error: rule {2}the rule/m);
  });

  // oclif reads a piped standard input into a missing argument when the pipe closes within 10 ms of
  // parsing, and reports the argument missing otherwise: RULE comes from the command line only.
  test.each([
    ['written and closed at once', 0],
    ['closed 300 ms after it is written', 300],
  ])('a piped rule and no RULE: the argument is missing (exit 2), the pipe %s', async (_, delay) => {
    const { code, stdout, stderr } = await piped(['validate-rule'], '||ads.example.com^\n', '', delay);
    expect(code, stdout).toBe(2);
    expect(stderr).toMatch(/Missing 1 required arg/);
    expect(stdout).toBe('');
  });

  test.each([
    ['||example.com^$dnsrewrite=NOERROR;A;1.2.3.4', ['--strict', '--test-url', 'https://example.com']],
    ['example.com##', []],
    ['0.0.0.0 ads.example.com', ['--test-url', 'http://ads.example.com']],
  ])('--json prints exactly the HTTP 200 body for %s', async (rule, extra) => {
    const result = await runCli(['validate-rule', rule, '--json', ...extra]);
    const body = validateRule({
      rule,
      strict: extra.includes('--strict') || undefined,
      testUrl: extra[extra.indexOf('--test-url') + 1],
    });
    expect(withoutDuration(JSON.parse(result.stdout))).toEqual(withoutDuration(JSON.parse(JSON.stringify(body))));
    expect(result.code).toBe(body.valid ? 0 : 1);
  });
});

describe('flc ast-walk and compile --ast-walk', () => {
  // oclif reads a piped standard input into a missing argument when the pipe closes within 10 ms;
  // ast-walk's FILE must never take the list's text for a file name, however the pipe is timed.
  test.each([
    ['written and closed at once', 0],
    ['closed 300 ms after its first line', 300],
  ])('ast-walk with no FILE walks a piped list %s', async (_, delay) => {
    const { code, stdout, stderr } = await piped(
      ['ast-walk', '--max-depth', '1'],
      '||first.example^\n',
      '||second.example^\n',
      delay,
    );
    expect(code, stderr).toBe(0);
    const patterns = JSON.parse(stdout)
      .nodes.filter((n: { depth: number }) => n.depth === 1)
      .map((n: { node: { pattern: { value: string } } }) => n.node.pattern.value);
    expect(patterns).toEqual(['||first.example^', '||second.example^']);
  });

  test('ast-walk FILE prints {nodes, summary}', async () => {
    const result = await runCli(['ast-walk', FIXTURE, '--types', 'App', '--types', 'Method', '--include-context']);
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.summary).toEqual({ App: 2, Method: 2, total: 4 });
    expect(out.nodes[0]).toMatchObject({ type: 'App', key: 'apps', index: 0, node: { value: 'com.app' } });
  });

  test('compile --ast-walk --input: every node has key and index, null at the root', async () => {
    const result = await runCli(['compile', '--ast-walk', '--input', FIXTURE, '--ast-walk-depth', '1']);
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.nodes[0]).toMatchObject({ type: 'FilterList', depth: 0, key: null, index: null });
    expect(out.nodes.slice(1).every((n: { key: string; depth: number }) => n.key === 'children' && n.depth === 1)).toBe(
      true,
    );
    expect(out).toEqual(
      JSON.parse(
        JSON.stringify(
          walkAst({ text: (await import('node:fs')).readFileSync(FIXTURE, 'utf8'), maxDepth: 1, includeContext: true }),
        ),
      ),
    );
  });

  test('reads standard input; logs stay off stdout', () => {
    const run = spawnSync(process.execPath, [BIN, 'compile', '--ast-walk', '--ast-walk-types', 'Modifier'], {
      input: '||a.com^$third-party,domain=x.com\nexample.com##.ad\n',
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.summary).toEqual({ Modifier: 2, total: 2 });
    const viaCommand = spawnSync(process.execPath, [BIN, 'ast-walk', '-', '--types', 'Modifier'], {
      input: '||a.com^$third-party,domain=x.com\n',
      encoding: 'utf8',
    });
    expect(JSON.parse(viaCommand.stdout).summary).toEqual({ Modifier: 2, total: 2 });
  });

  test('a bad node type is a usage error, naming the flag and the value', async () => {
    const result = await runCli(['ast-walk', FIXTURE, '--types', 'Bogus']);
    expect(result.code).toBe(2);
    const walkMode = await runCli(['compile', '--ast-walk', '--input', FIXTURE, '--ast-walk-types', 'Bogus']);
    expect(walkMode.code).toBe(2);
    expect(walkMode.stderr).toMatch(/ast-walk-types.*Bogus|Bogus.*ast-walk-types/s);
    expect(walkMode.stdout).toBe('');
  });
});
