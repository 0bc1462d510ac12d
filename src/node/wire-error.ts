import * as errors from '../core/errors/index.js';

/** An error as it crosses a thread boundary: its class name and its own fields. */
export interface WireError {
  name: string;
  message: string;
  fields: Record<string, unknown>;
}

// Structured clone keeps an Error's message but not its class; the server maps errors by class.
const CLASSES = new Map<string, new (...args: never[]) => Error>(
  Object.values(errors).map((c) => [c.name, c as new (...args: never[]) => Error]),
);

/** `e` as plain data: the class name (when it is one of the core's), message and fields. */
export function toWire(e: unknown): WireError {
  const err = e instanceof Error ? e : new Error(String(e));
  const name = CLASSES.has(err.constructor.name) ? err.constructor.name : 'Error';
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(err)) if (k !== 'cause' && typeof v !== 'function') fields[k] = v;
  return { name, message: err.message, fields };
}

/** The error `toWire` described, of the same class (without its stack, which stays in its thread). */
export function fromWire(w: WireError): Error {
  const cls = CLASSES.get(w.name) ?? Error;
  const err = Object.create(cls.prototype) as Error;
  Object.defineProperty(err, 'message', { value: w.message, writable: true, configurable: true });
  return Object.assign(err, w.fields);
}
