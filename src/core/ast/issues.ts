import type { z } from 'zod';
import { InputError } from '../errors/index.js';

/** One message per schema problem, prefixed with the field when the message does not name it. */
export function issueMessages(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    if (!path || issue.message.startsWith(path)) return issue.message;
    return `${path}: ${issue.message}`;
  });
}

/** `request` as `schema` reads it; an InputError with every problem when it does not fit. */
export function parseRequest<T extends z.ZodType>(schema: T, request: unknown): z.output<T> {
  const parsed = schema.safeParse(request);
  if (!parsed.success) throw new InputError(issueMessages(parsed.error));
  return parsed.data;
}
