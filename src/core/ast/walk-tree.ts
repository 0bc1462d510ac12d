import { AppListParser, DomainListParser, MethodListParser, StealthOptionListParser } from '@adguard/agtree';
import { PARSER_OPTIONS, parseRule } from './parse-rule.js';
import type { NodeType } from './node-types.js';
import { InputError } from '../errors/index.js';
import { DOMAIN_LIST_MODIFIERS } from './syntax.js';

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

export type AnyNode = { type: string } & Record<string, unknown>;

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
    if (name === 'method')
      return ['methods', MethodListParser.parse(value, PARSER_OPTIONS).children as unknown as AnyNode[]];
    if (name === 'stealth')
      return ['stealthOptions', StealthOptionListParser.parse(value, PARSER_OPTIONS).children as unknown as AnyNode[]];
    if (DOMAIN_LIST_MODIFIERS.has(name))
      return ['domains', DomainListParser.parse(value, PARSER_OPTIONS, 0, '|') as unknown as AnyNode];
  } catch {
    // An unparsable value simply has no child nodes; validation reports it.
  }
  return null;
}

function isNode(v: unknown): v is AnyNode {
  return typeof v === 'object' && v !== null && typeof (v as AnyNode).type === 'string';
}

/** The lines of a list text; a final newline does not make an extra empty rule. */
export function textLines(text: string): string[] {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** What to walk and what to report; validated by the caller (`walkAst`, or the CLI's flags). */
export interface WalkInput {
  /** Exactly one of `rules` and `text`. */
  rules?: string[];
  text?: string;
  nodeTypes?: readonly string[];
  maxDepth?: number;
  includeContext?: boolean;
}

/** The filters of a walk: everything of WalkInput but what to walk. */
export type WalkOptions = Pick<WalkInput, 'nodeTypes' | 'maxDepth' | 'includeContext'>;

/** Which nodes a walk reports, and where it puts them. */
export interface WalkSink {
  wanted: Set<string> | null;
  maxDepth: number;
  includeContext: boolean;
  nodes: WalkNode[];
  /** Count per type, in the order the types are first met. */
  summary: Record<string, number>;
}

export function walkSink(input: WalkOptions): WalkSink {
  const { nodeTypes, includeContext = false } = input;
  const wanted = nodeTypes && nodeTypes.length > 0 ? new Set<string>(nodeTypes) : null;
  return { wanted, maxDepth: input.maxDepth ?? 50, includeContext, nodes: [], summary: {} };
}

/**
 * Visits `node` and its descendants in pre-order, adding those the filters keep to the sink.
 * Filters skip nodes without pruning the walk: a node of an unwanted type is left out but its
 * children are still visited.
 */
export function visitTree(
  node: AnyNode,
  depth: number,
  key: string | null,
  index: number | null,
  sink: WalkSink,
): void {
  if (sink.wanted === null || sink.wanted.has(node.type)) {
    const record: WalkNode = sink.includeContext
      ? { type: node.type as NodeType, depth, key, index, node }
      : { type: node.type as NodeType, depth, node };
    sink.nodes.push(record);
    sink.summary[node.type] = (sink.summary[node.type] ?? 0) + 1;
  }
  if (depth >= sink.maxDepth) return;
  for (const childKey of CHILD_KEYS[node.type] ?? []) {
    const child = node[childKey];
    if (Array.isArray(child)) {
      child.forEach((c, i) => {
        if (isNode(c)) visitTree(c, depth + 1, childKey, i, sink);
      });
    } else if (isNode(child)) visitTree(child, depth + 1, childKey, null, sink);
  }
  if (node.type === 'Modifier') {
    const extra = modifierValueChildren(node);
    if (extra && Array.isArray(extra[1])) {
      for (const [i, c] of extra[1].entries()) visitTree(c, depth + 1, extra[0], i, sink);
    } else if (extra) visitTree(extra[1] as AnyNode, depth + 1, extra[0], null, sink);
  }
}

/**
 * Parses rules (or a list text) into a FilterList and walks it in pre-order, returning
 * the flat node list and a count per type. No zod here, so the command line walks without
 * loading it.
 */
export function walkTree(input: WalkInput): WalkResult {
  const { rules, text } = input;
  if ((rules === undefined) === (text === undefined))
    throw new InputError(['exactly one of rules and text is required']);
  const root = { type: 'FilterList', children: (rules ?? textLines(text!)).map((r) => parseRule(r)) };
  const sink = walkSink(input);
  visitTree(root, 0, null, null, sink);
  return { nodes: sink.nodes, summary: { ...sink.summary, total: sink.nodes.length } };
}
