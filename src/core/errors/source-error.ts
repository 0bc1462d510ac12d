import { FlcError } from './flc-error.js';

/** A source (or an exclusion/inclusion source, or an include) could not be loaded. */
export class SourceError extends FlcError {
  readonly source: string;

  constructor(source: string, reason: string, options?: { cause?: unknown }) {
    super('SOURCE_FAILED', `Source ${source} failed: ${reason}`, options);
    this.name = 'SourceError';
    this.source = source;
  }
}
