import { FlcError } from './flc-error.js';

/** A write that would duplicate something unique (an email, a key); the server answers 409. */
export class ConflictError extends FlcError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CONFLICT', message, options);
    this.name = 'ConflictError';
  }
}
