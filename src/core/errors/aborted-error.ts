import { FlcError } from './flc-error.js';

/** The compilation was cancelled through its AbortSignal. */
export class AbortedError extends FlcError {
  constructor(reason?: unknown) {
    super('ABORTED', 'Compilation cancelled', { cause: reason });
    this.name = 'AbortedError';
  }
}
