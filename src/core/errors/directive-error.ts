import { FlcError } from './flc-error.js';

/** A malformed `!#if`/`!#else`/`!#endif`/`!#include` directive in a list. */
export class DirectiveError extends FlcError {
  readonly location: string;
  readonly line: number;

  constructor(location: string, line: number, message: string, options?: { cause?: unknown }) {
    super('DIRECTIVE_INVALID', `${location}:${line}: ${message}`, options);
    this.name = 'DirectiveError';
    this.location = location;
    this.line = line;
  }
}
