import { FlcError } from './flc-error.js';

export interface ConfigIssue {
  /** Dotted path of the bad field, e.g. `sources[0].transformations[1]`; '' for the document. */
  path: string;
  message: string;
}

/** The configuration cannot be read or does not satisfy the schema. */
export class ConfigError extends FlcError {
  readonly issues: ConfigIssue[];
  /** The configuration file, when there is one. */
  readonly file?: string;

  constructor(issues: ConfigIssue[], options?: { cause?: unknown; file?: string }) {
    const where = options?.file ? ` in ${options.file}` : '';
    const list = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
    super('CONFIG_INVALID', `Invalid configuration${where}: ${list}`, options);
    this.name = 'ConfigError';
    this.issues = issues;
    this.file = options?.file;
  }
}
