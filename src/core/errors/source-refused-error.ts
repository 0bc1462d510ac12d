import { FlcError } from './flc-error.js';

/** A source the server will not read (file:, private or metadata addresses, too large). */
export class SourceRefusedError extends FlcError {
  readonly source: string;

  constructor(source: string, reason: string) {
    super('SOURCE_REFUSED', `Source ${source} refused: ${reason}`);
    this.name = 'SourceRefusedError';
    this.source = source;
  }
}
