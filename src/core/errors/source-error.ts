import { FlcError } from './flc-error.js';

/** What a failed list was to the configuration, as its message names it. */
export type ListRole = 'source' | 'exclusions file' | 'inclusions file';

/** A source (or an exclusions or inclusions file, or an include) could not be loaded. */
export class SourceError extends FlcError {
  readonly source: string;
  readonly role: ListRole;

  constructor(source: string, reason: string, options?: { cause?: unknown; role?: ListRole }) {
    const role = options?.role ?? 'source';
    super('SOURCE_FAILED', `${role[0].toUpperCase()}${role.slice(1)} ${source} failed: ${reason}`, options);
    this.name = 'SourceError';
    this.source = source;
    this.role = role;
  }
}
