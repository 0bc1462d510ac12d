import { FlcError } from './flc-error.js';

/**
 * The store could not serve a request for a while (a database locked by another writer, a server
 * that cannot be reached); the server answers 503 with `Retry-After`, and later requests go on.
 */
export class StoreUnavailableError extends FlcError {
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number, options?: { cause?: unknown }) {
    super('STORE_UNAVAILABLE', message, options);
    this.name = 'StoreUnavailableError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
