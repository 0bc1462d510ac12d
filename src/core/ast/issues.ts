import type { z } from 'zod';

/** One message per schema problem, prefixed with the field when the message does not name it. */
export function issueMessages(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    if (!path || issue.message.startsWith(path)) return issue.message;
    return `${path}: ${issue.message}`;
  });
}
