export { FlcError } from './flc-error.js';
export { ConfigError } from './config-error.js';
export { SourceError } from './source-error.js';
export { DirectiveError } from './directive-error.js';
export { PatternError } from './pattern-error.js';
export { AbortedError } from './aborted-error.js';
export { InputError } from './input-error.js';
