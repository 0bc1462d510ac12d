/** Base of every error the core throws for a failure of a whole operation. */
export class FlcError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FlcError';
    this.code = code;
  }
}

export interface ConfigIssue {
  /** Dotted path of the bad field, e.g. `sources[0].transformations[1]`; '' for the document. */
  path: string;
  message: string;
}

/** The source an issue is inside: its `name` (else its `source`), and the path within it. */
export interface IssueSource {
  label: string;
  path: string;
}

/** The configuration cannot be read or does not satisfy the schema. */
export class ConfigError extends FlcError {
  readonly issues: ConfigIssue[];
  /** The configuration file, when there is one. */
  readonly file?: string;

  /** The source each issue inside one is about, so that one mistake over many sources reads as one. */
  readonly sources: ReadonlyMap<ConfigIssue, IssueSource>;

  constructor(
    issues: ConfigIssue[],
    options?: { cause?: unknown; file?: string; sources?: ReadonlyMap<ConfigIssue, IssueSource> },
  ) {
    const where = options?.file ? ` in ${options.file}` : '';
    const list = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
    super('CONFIG_INVALID', `Invalid configuration${where}: ${list}`, options);
    this.name = 'ConfigError';
    this.issues = issues;
    this.file = options?.file;
    this.sources = options?.sources ?? new Map();
  }
}

/** What a failed list was to the configuration, as its message names it. */
export type ListRole = 'source' | 'exclusions file' | 'inclusions file' | 'allowlist file';

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

/** A source the server will not read (file:, private or metadata addresses, too large). */
export class SourceRefusedError extends FlcError {
  readonly source: string;

  constructor(source: string, reason: string) {
    super('SOURCE_REFUSED', `Source ${source} refused: ${reason}`);
    this.name = 'SourceRefusedError';
    this.source = source;
  }
}

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

/** An exclusion or inclusion pattern that cannot be compiled (a bad `/regex/`). */
export class PatternError extends FlcError {
  readonly pattern: string;

  constructor(pattern: string, reason: string) {
    super('PATTERN_INVALID', `Invalid pattern ${pattern}: ${reason}`);
    this.name = 'PatternError';
    this.pattern = pattern;
  }
}

/** The compilation was cancelled through its AbortSignal. */
export class AbortedError extends FlcError {
  constructor(reason?: unknown) {
    super('ABORTED', 'Compilation cancelled', { cause: reason });
    this.name = 'AbortedError';
  }
}

/** A request that does not satisfy its schema; the server answers 422 with the messages joined by `; `. */
export class InputError extends FlcError {
  readonly messages: string[];

  constructor(messages: string[]) {
    super('INPUT_INVALID', messages.join('; '));
    this.name = 'InputError';
    this.messages = messages;
  }
}

/** Work that ran past its deadline (a server compile, a rule matched against a test URL). */
export class DeadlineError extends FlcError {
  readonly deadlineMs: number;

  constructor(what: string, deadlineMs: number) {
    super('DEADLINE_EXCEEDED', `${what} took longer than its deadline of ${deadlineMs} ms and was stopped`);
    this.name = 'DeadlineError';
    this.deadlineMs = deadlineMs;
  }
}

/**
 * An answer that would be larger than the server lets it be (an AST walk of many rules can be
 * tens of times the size of its request); refused with a message naming the limit.
 */
export class AnswerTooLargeError extends FlcError {
  readonly limitBytes: number;

  constructor(what: string, limitBytes: number, setting: string, advice: string) {
    super(
      'ANSWER_TOO_LARGE',
      `${what} would be larger than the answer limit of ${formatBytes(limitBytes)} (${setting}): ${advice}`,
    );
    this.name = 'AnswerTooLargeError';
    this.limitBytes = limitBytes;
  }
}

function formatBytes(n: number): string {
  return n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : `${n} bytes`;
}

/**
 * A caller has as many compiles running or waiting for a worker as their tier allows
 * (`maxConcurrentCompiles`); the server answers 429.
 */
/** A request the process cannot take now, as many of its kind are running: to try again shortly. */
export class BusyError extends FlcError {
  constructor(message: string) {
    super('BUSY', message);
    this.name = 'BusyError';
  }
}

export class TooManyCompilesError extends FlcError {
  /** `what`: the tasks counted, `compiles` or `tasks` (a walk, a parse, a validation, a rule match). */
  constructor(limit: number, tier: string, what = 'compiles') {
    const counted = what === 'compiles' ? '' : ', compiles included';
    super(
      'TOO_MANY_COMPILES',
      `At most ${limit} ${what} at once for the ${tier} tier (maxConcurrentCompiles${counted}): wait for one to end`,
    );
    this.name = 'TooManyCompilesError';
  }
}

/**
 * A compile whose sources come to more than a worker's memory allows, or that needed more memory
 * than a worker may use (`--max-memory`): stopped, and the server goes on.
 */
export class MemoryLimitError extends FlcError {
  constructor(message: string) {
    super('MEMORY_LIMIT', `${message} (--max-memory): compile fewer or smaller sources`);
    this.name = 'MemoryLimitError';
  }
}

/** A caller without the permission an operation needs (the server answers 403, naming it). */
export class ForbiddenError extends FlcError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('FORBIDDEN', message, options);
    this.name = 'ForbiddenError';
  }
}

/** A write that would duplicate something unique (an email, a key); the server answers 409. */
export class ConflictError extends FlcError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CONFLICT', message, options);
    this.name = 'ConflictError';
  }
}

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
