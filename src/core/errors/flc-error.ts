/** Base of every error the core throws for a failure of a whole operation. */
export class FlcError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FlcError';
    this.code = code;
  }
}
