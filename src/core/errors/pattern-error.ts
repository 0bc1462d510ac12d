import { FlcError } from './flc-error.js';

/** An exclusion or inclusion pattern that cannot be compiled (a bad `/regex/`). */
export class PatternError extends FlcError {
  readonly pattern: string;

  constructor(pattern: string, reason: string) {
    super('PATTERN_INVALID', `Invalid pattern ${pattern}: ${reason}`);
    this.name = 'PatternError';
    this.pattern = pattern;
  }
}
