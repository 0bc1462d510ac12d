import { FlcError } from './flc-error.js';

/** Work that ran past its deadline (a server compile, a rule matched against a test URL). */
export class DeadlineError extends FlcError {
  readonly deadlineMs: number;

  constructor(what: string, deadlineMs: number) {
    super('DEADLINE_EXCEEDED', `${what} took longer than its deadline of ${deadlineMs} ms and was stopped`);
    this.name = 'DeadlineError';
    this.deadlineMs = deadlineMs;
  }
}
