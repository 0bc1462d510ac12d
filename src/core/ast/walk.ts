import { z } from 'zod';
import { AppListParser, DomainListParser, MethodListParser, StealthOptionListParser } from '@adguard/agtree';
import { PARSER_OPTIONS, parseRule } from './parse-rule.js';
import { NODE_TYPES, type NodeType } from './node-types.js';
import { InputError } from '../errors/input-error.js';
import { issueMessages } from './issues.js';

const MAX_TEXT_BYTES = 1024 * 1024;

function utf8Length(s: string): number {
  if (s.length * 3 <= MAX_TEXT_BYTES) return s.length; // cannot exceed the limit; exact size not needed
  let bytes = 0;
  for (let i = 0; i < s.length; i += 1) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      bytes += 4;
      i += 1;
    } else bytes += 3;
  }
  return bytes;
}

const walkRequest = (limited: boolean) =>
  z
  .object({
    rules: (limited
      ? z.array(z.string().max(4096, 'each rule must be at most 4096 characters')).max(5000, 'rules must have at most 5000 items')
      : z.array(z.string())
    ).optional(),
    text: (limited ? z.string().refine((s) => utf8Length(s) <= MAX_TEXT_BYTES, 'text must be at most 1 MiB') : z.string()).optional(),
    nodeTypes: z
      .array(z.enum(NODE_TYPES, { error: (i) => `unknown node type ${JSON.stringify(i.input)}` }))
      .max(30, 'nodeTypes must have at most 30 items')
      .optional(),
    maxDepth: z.number().int('maxDepth must be an integer').min(0, 'maxDepth must be between 0 and 50').max(50, 'maxDepth must be between 0 and 50').optional(),
    includeContext: z.boolean().optional(),
    challengeToken: z.string().optional(),
  })
  .refine((v) => (v.rules === undefined) !== (v.text === undefined), { message: 'exactly one of rules and text is required' });

/** The request of `POST /api/ast/walk`, with the specification's limits. */
export const astWalkRequestSchema = walkRequest(true);
/** The same request without size limits, for local files on the command line. */
const unlimitedWalkRequestSchema = walkRequest(false);

export type AstWalkRequest = z.infer<typeof astWalkRequestSchema>;

export interface WalkNode {
  type: NodeType;
  depth: number;
  key?: string | null;
  index?: number | null;
  node: object;
}

export interface WalkResult {
  nodes: WalkNode[];
  summary: Record<string, number> & { total: number };
}

/** The properties holding child nodes, per node type, in the order they are visited. */
const CHILD_KEYS: Record<string, readonly string[]> = {
  FilterList: ['children'],
  NetworkRule: ['pattern', 'modifiers'],
  HostRule: ['ip', 'hostnames', 'comment'],
  HostnameList: ['children'],
  ModifierList: ['children'],
  Modifier: ['name', 'value'],
  ElementHidingRule: ['modifiers', 'domains', 'separator', 'body'],
  CssInjectionRule: ['modifiers', 'domains', 'separator', 'body'],
  ScriptletInjectionRule: ['modifiers', 'domains', 'separator', 'body'],
  HtmlFilteringRule: ['modifiers', 'domains', 'separator', 'body'],
  JsInjectionRule: ['modifiers', 'domains', 'separator', 'body'],
  ElementHidingRuleBody: ['selectorList'],
  CssInjectionRuleBody: ['mediaQueryList', 'selectorList', 'declarationList'],
  ScriptletInjectionRuleBody: ['children'],
  DomainList: ['children'],
  CommentRule: ['marker', 'text'],
  MetadataCommentRule: ['marker', 'header', 'value'],
  HintCommentRule: ['children'],
  Hint: ['name', 'params'],
  ConfigCommentRule: ['marker', 'command', 'params', 'comment'],
  AgentCommentRule: ['children'],
  Agent: ['adblock', 'version'],
  PreProcessorCommentRule: ['name', 'params'],
  ParameterList: ['children'],
  Operator: ['left', 'right'],
  Parenthesis: ['expression'],
};

type AnyNode = { type: string } & Record<string, unknown>;

/**
 * Modifier values that only list parsers turn into nodes: `$app`, `$method`,
 * `$stealth` and the domain-list modifiers. The walk parses them so that App, Method,
 * StealthOption and a `$domain` DomainList appear as children of their Modifier.
 */
function modifierValueChildren(node: AnyNode): [string, AnyNode | AnyNode[]] | null {
  const name = (node.name as { value: string }).value;
  const value = (node.value as { value: string } | undefined)?.value;
  if (!value) return null;
  try {
    if (name === 'app') return ['apps', AppListParser.parse(value, PARSER_OPTIONS).children as unknown as AnyNode[]];
    if (name === 'method') return ['methods', MethodListParser.parse(value, PARSER_OPTIONS).children as unknown as AnyNode[]];
    if (name === 'stealth') return ['stealthOptions', StealthOptionListParser.parse(value, PARSER_OPTIONS).children as unknown as AnyNode[]];
    if (name === 'domain' || name === 'from' || name === 'to' || name === 'denyallow') {
      return ['domains', DomainListParser.parse(value, PARSER_OPTIONS, 0, '|') as unknown as AnyNode];
    }
  } catch {
    // An unparsable value simply has no child nodes; validation reports it.
  }
  return null;
}

function isNode(v: unknown): v is AnyNode {
  return typeof v === 'object' && v !== null && typeof (v as AnyNode).type === 'string';
}

/** The lines of a list text; a final newline does not make an extra empty rule. */
function textLines(text: string): string[] {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Parses rules (or a list text) into a FilterList and walks it in pre-order, returning
 * the flat node list and a count per type. Filters skip nodes without pruning the walk:
 * a node of an unwanted type is left out but its children are still visited. Throws
 * InputError for requests outside the specification's limits.
 */
export function walkAst(request: unknown, options: { limits?: boolean } = {}): WalkResult {
  const parsed = (options.limits === false ? unlimitedWalkRequestSchema : astWalkRequestSchema).safeParse(request);
  if (!parsed.success) throw new InputError(issueMessages(parsed.error));
  const { rules, text, nodeTypes, includeContext = false } = parsed.data;
  const maxDepth = parsed.data.maxDepth ?? 50;
  const wanted = nodeTypes && nodeTypes.length > 0 ? new Set<string>(nodeTypes) : null;
  const root = { type: 'FilterList', children: (rules ?? textLines(text!)).map((r) => parseRule(r)) };

  const nodes: WalkNode[] = [];
  const summary: Record<string, number> = {};
  const visit = (node: AnyNode, depth: number, key: string | null, index: number | null): void => {
    if (wanted === null || wanted.has(node.type)) {
      const record: WalkNode = includeContext
        ? { type: node.type as NodeType, depth, key, index, node }
        : { type: node.type as NodeType, depth, node };
      nodes.push(record);
      summary[node.type] = (summary[node.type] ?? 0) + 1;
    }
    if (depth >= maxDepth) return;
    for (const childKey of CHILD_KEYS[node.type] ?? []) {
      const child = node[childKey];
      if (Array.isArray(child)) child.forEach((c, i) => isNode(c) && visit(c, depth + 1, childKey, i));
      else if (isNode(child)) visit(child, depth + 1, childKey, null);
    }
    if (node.type === 'Modifier') {
      const extra = modifierValueChildren(node);
      if (extra && Array.isArray(extra[1])) extra[1].forEach((c, i) => visit(c, depth + 1, extra[0], i));
      else if (extra) visit(extra[1] as AnyNode, depth + 1, extra[0], null);
    }
  };
  visit(root, 0, null, null);
  return { nodes, summary: { ...summary, total: nodes.length } };
}
