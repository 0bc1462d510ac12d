import { FlcError } from './flc-error.js';

/** A request that does not satisfy its schema; the server answers 422 with the messages joined by `; `. */
export class InputError extends FlcError {
  readonly messages: string[];

  constructor(messages: string[]) {
    super('INPUT_INVALID', messages.join('; '));
    this.name = 'InputError';
    this.messages = messages;
  }
}
