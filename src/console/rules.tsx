import type { Context } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Child } from 'hono/jsx';
import { validateRuleRequestSchema } from '../core/ast/validate-rule.js';
import { issueMessages } from '../core/ast/issues.js';
import { BODY_LIMITS, listAnswerJson, poolCall, validateRuleAnswer } from '../server/routes/rules.js';
import { clientMessage } from '../server/problem.js';
import { type ConsoleContext, pageHandler, render } from './frame.js';
import { CsrfForm, FormError } from './layout.js';
import { consoleRoute } from './pages.js';
import { CSRF_FIELD, csrfMatches } from './session.js';

const ACCESS = { tier: 'free', scope: 'rules' } as const;
/** Nodes the tree shows at most: a large list's tree is read a rule at a time, not all at once. */
export const TREE_NODES = 20_000;
const PAGE = { title: 'Rules', path: '/console/rules' };
const CSRF_REFUSED = 'The form has expired or did not come from this site; send it again.';

type Verdict = { kept: boolean; reason?: string; rule?: string };
interface TestAnswer {
  valid: boolean;
  rule: string;
  ruleType: string;
  category?: string;
  syntax?: string;
  error?: string;
  ast?: unknown;
  testUrl?: string;
  matchResult?: boolean;
  dependsOn?: string[];
  validators?: Record<string, Verdict>;
}
interface ParsedRule {
  rule: string;
  ruleType: string;
  valid: boolean;
  error?: string;
  ast?: unknown;
}

interface Budget {
  left: number;
}

/** A syntax-tree node as nested `<details>`: its type, its plain fields, then its child nodes. */
function Node({ label, value, budget }: { label: string; value: unknown; budget: Budget }): Child {
  if (budget.left <= 0) return null;
  budget.left -= 1;
  if (value === null || typeof value !== 'object')
    return (
      <li>
        <span class="muted">{label}:</span> <code>{JSON.stringify(value)}</code>
      </li>
    );
  const entries = Array.isArray(value)
    ? value.map((v, i) => [`${label}[${i}]`, v] as const)
    : Object.entries(value as Record<string, unknown>).filter(([k]) => k !== 'type');
  const type = Array.isArray(value) ? `${value.length} items` : String((value as { type?: unknown }).type ?? '');
  const plain = entries.filter(([, v]) => v === null || typeof v !== 'object');
  const nested = entries.filter(([, v]) => v !== null && typeof v === 'object');
  return (
    <li>
      <details class="node" open={budget.left > TREE_NODES - 50}>
        <summary>
          <span class="muted">{label}</span> <span class="node-type">{type}</span>
        </summary>
        <ul>
          {plain.map(([k, v]) => (
            <Node label={k} value={v} budget={budget} />
          ))}
          {nested.map(([k, v]) => (
            <Node label={k} value={v} budget={budget} />
          ))}
        </ul>
      </details>
    </li>
  );
}

function Tree({ rules }: { rules: ParsedRule[] }) {
  const budget = { left: TREE_NODES };
  return (
    <section aria-labelledby="tree-title" id="tree">
      <h2 id="tree-title">Syntax tree</h2>
      <ul class="tree">
        {rules.map((r) => (
          <li>
            <details class="node" open={rules.length === 1}>
              <summary>
                <code>{r.rule}</code> <span class="node-type">{r.ruleType}</span>
                {r.valid ? null : <span class="verdict-bad"> invalid: {r.error}</span>}
              </summary>
              <ul>{r.ast ? <Node label="ast" value={r.ast} budget={budget} /> : null}</ul>
            </details>
          </li>
        ))}
      </ul>
      {budget.left <= 0 ? (
        <p class="muted">The tree was cut at {TREE_NODES} nodes: parse fewer rules at a time.</p>
      ) : null}
    </section>
  );
}

function TestResult({ answer }: { answer: TestAnswer }) {
  return (
    <section aria-labelledby="test-title" id="test-result">
      <h2 id="test-title">Result</h2>
      <p class={answer.valid ? 'verdict-good' : 'verdict-bad'} role="status">
        <code>{answer.rule}</code> is {answer.valid ? 'valid' : `invalid: ${answer.error ?? ''}`} ({answer.ruleType}
        {answer.category ? `, ${answer.category}` : ''}
        {answer.syntax ? `, ${answer.syntax} syntax` : ''})
      </p>
      {answer.testUrl !== undefined ? (
        <p id="match">
          {answer.matchResult === undefined
            ? `This kind of rule says nothing about ${answer.testUrl} by its hostname.`
            : `${answer.matchResult ? 'Matches' : 'Does not match'} ${answer.testUrl}`}
          {answer.dependsOn?.length
            ? ` (also depends on what the hostname does not tell: ${answer.dependsOn.join(', ')})`
            : ''}
        </p>
      ) : null}
      {answer.validators ? (
        <div class="table-wrap">
          <table id="validators">
            <caption class="muted">What each Validate transformation does with the rule in a compile</caption>
            <thead>
              <tr>
                <th scope="col">Validator</th>
                <th scope="col">Verdict</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(answer.validators).map(([name, v]) => (
                <tr>
                  <td>{name}</td>
                  <td class={v.kept ? 'verdict-good' : 'verdict-bad'}>
                    {v.kept ? 'keeps it' : `removes it: ${v.reason ?? ''}`}
                    {v.rule ? ` (as ${v.rule})` : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {answer.ast ? (
        <Tree rules={[{ rule: answer.rule, ruleType: answer.ruleType, valid: true, ast: answer.ast }]} />
      ) : null}
    </section>
  );
}

function Forms(props: { csrf: string; rule?: string; testUrl?: string; strict?: boolean; list?: string }) {
  return (
    <>
      <CsrfForm action="/console/rules/test" csrf={props.csrf} class="stack" id="test-form">
        <h2>Test a rule</h2>
        <label for="rule">Rule</label>
        <input id="rule" name="rule" required value={props.rule ?? ''} autocomplete="off" spellcheck={false} />
        <label for="testUrl">Test URL (optional; only its hostname is matched)</label>
        <input
          id="testUrl"
          name="testUrl"
          type="url"
          value={props.testUrl ?? ''}
          placeholder="https://ads.example.com/"
        />
        <div class="choices">
          <label>
            <input type="checkbox" name="strict" value="1" checked={props.strict} /> Strict (non-tolerant parse,
            per-product modifier checks)
          </label>
        </div>
        <button type="submit">Test</button>
      </CsrfForm>
      <CsrfForm action="/console/rules/tree" csrf={props.csrf} class="stack" id="tree-form">
        <h2>Syntax tree of rules or a list</h2>
        <label for="list">Rules, one a line</label>
        <textarea id="list" name="list" required spellcheck={false} rows={8}>
          {props.list ?? ''}
        </textarea>
        <button type="submit">Show the tree</button>
      </CsrfForm>
    </>
  );
}

async function formOf(c: Context): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v : '']));
}

/** The Rules page: the rule tester (`validate-rule`) and the syntax tree of rules or a list. */
export function registerRulePages(app: OpenAPIHono, ctx: ConsoleContext): void {
  consoleRoute(
    app,
    { method: 'get', path: '/console/rules', access: ACCESS, summary: 'Console: the rule tester and syntax tree' },
    pageHandler(ctx, PAGE, (_c, f) => <Forms csrf={f.csrf} />),
  );

  consoleRoute(
    app,
    {
      method: 'post',
      path: '/console/rules/test',
      access: ACCESS,
      bodyLimit: BODY_LIMITS.rule,
      summary: 'Console: test a rule (validate-rule)',
    },
    async (c) => {
      const form = await formOf(c);
      const strict = form.strict === '1';
      const again = (status: 200 | 403 | 422, error: string | null, answer?: TestAnswer) =>
        render(
          c,
          ctx,
          PAGE,
          (f) => (
            <>
              <FormError message={error} />
              {answer ? <TestResult answer={answer} /> : null}
              <Forms csrf={f.csrf} rule={form.rule} testUrl={form.testUrl} strict={strict} />
            </>
          ),
          status,
        );
      if (!csrfMatches(c, form[CSRF_FIELD])) return again(403, CSRF_REFUSED);
      const input = validateRuleRequestSchema.safeParse({
        rule: form.rule ?? '',
        ...(form.testUrl ? { testUrl: form.testUrl } : {}),
        strict,
      });
      if (!input.success) return again(422, issueMessages(input.error).join('; '));
      try {
        return again(200, null, (await validateRuleAnswer(input.data, ctx.deps.pool, poolCall(c))) as TestAnswer);
      } catch (err) {
        return again(422, clientMessage(err));
      }
    },
  );

  consoleRoute(
    app,
    {
      method: 'post',
      path: '/console/rules/tree',
      access: ACCESS,
      bodyLimit: BODY_LIMITS.list,
      summary: 'Console: the syntax tree of rules or a list',
    },
    async (c) => {
      const form = await formOf(c);
      const again = (status: 200 | 403 | 422, error: string | null, rules?: ParsedRule[]) =>
        render(
          c,
          ctx,
          PAGE,
          (f) => (
            <>
              <FormError message={error} />
              {rules ? <Tree rules={rules} /> : null}
              <Forms csrf={f.csrf} list={form.list} />
            </>
          ),
          status,
        );
      if (!csrfMatches(c, form[CSRF_FIELD])) return again(403, CSRF_REFUSED);
      const rules = (form.list ?? '').split(/\r?\n/).filter((line) => line.trim() !== '');
      if (rules.length === 0) return again(422, 'Paste at least one rule.');
      try {
        // The AST route's own answer (its limits: 5,000 rules of 4,096 characters, the worker's deadline).
        const bytes = await listAnswerJson('parse', { rules }, ctx.deps.pool, poolCall(c));
        const answer = JSON.parse(Buffer.from(bytes).toString('utf8')) as { results: ParsedRule[] };
        return again(200, null, answer.results);
      } catch (err) {
        return again(422, clientMessage(err));
      }
    },
  );
}
