import { z } from 'zod';
import { NODE_TYPES } from './node-types.js';
import { walkTree, type WalkResult } from './walk-tree.js';
import { parseRequest } from './issues.js';

const MAX_TEXT_BYTES = 1024 * 1024;

/** Whether `s` is at most 1 MiB as UTF-8; a short text (3 bytes a code unit at most) is not encoded. */
const withinLimit = (s: string) =>
  s.length * 3 <= MAX_TEXT_BYTES || new TextEncoder().encode(s).length <= MAX_TEXT_BYTES;

/** The request of `POST /api/ast/walk`, with the specification's limits. */
export const astWalkRequestSchema = z
  .object({
    rules: z
      .array(z.string().max(4096, 'each rule must be at most 4096 characters'))
      .max(5000, 'rules must have at most 5000 items')
      .optional(),
    text: z.string().refine(withinLimit, 'text must be at most 1 MiB').optional(),
    nodeTypes: z
      .array(z.enum(NODE_TYPES, { error: (i) => `unknown node type ${JSON.stringify(i.input)}` }))
      .max(30, 'nodeTypes must have at most 30 items')
      .optional(),
    maxDepth: z
      .number()
      .int('maxDepth must be an integer')
      .min(0, 'maxDepth must be between 0 and 50')
      .max(50, 'maxDepth must be between 0 and 50')
      .optional(),
    includeContext: z.boolean().optional(),
    challengeToken: z.string().optional(),
  })
  .refine((v) => (v.rules === undefined) !== (v.text === undefined), {
    message: 'exactly one of rules and text is required',
  });

/**
 * The walk of `POST /api/ast/walk`: `walkTree` (which walks without limits) of a request within
 * the specification's limits; InputError for one outside them.
 */
export function walkAst(request: unknown): WalkResult {
  return walkTree(parseRequest(astWalkRequestSchema, request));
}
