import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { parseConfigText } from '../core/config/parse.js';
import { BusyError, ConfigError } from '../core/errors/index.js';
import { FairTurns } from './compile-pool.js';

/**
 * How the server reads YAML or TOML a client sends (a configuration pasted into the console, a
 * configuration bundle imported): in a worker thread of its own, stopped after `PARSE_LIMITS.ms`,
 * at most `PARSE_LIMITS.running` at once in the process. Both parsers take far more than linear
 * time on some hostile documents (900 KB of YAML flow nesting held the main thread 5 s, 300 KB of
 * repeated anchors 54 s), which the main thread must never run. JSON is parsed where it is (V8's
 * parser is linear and ends deep nesting with an error at once).
 *
 * The threads are shared fairly: each caller has at most one document in the process (read or
 * waiting), and a thread that comes free goes to the caller served longest ago (`FairTurns`), so
 * callers who keep slow documents coming cannot shut others out; a document waits at most
 * `waitMs` for a thread, and at most `waiting` wait.
 */
export const PARSE_LIMITS = { ms: 2_000, running: 2, heapMb: 64, waitMs: 3_000, waiting: 32 } as const;

const req = createRequire(import.meta.url);
const PARSERS = { yaml: req.resolve('yaml'), toml: req.resolve('@iarna/toml') };

/** The worker: parses `text` as YAML or TOML ('auto': YAML when it reads as a mapping, else TOML). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { text, syntax, parsers } = workerData;
const yaml = () => require(parsers.yaml).parse(text, { prettyErrors: true });
const toml = () => require(parsers.toml).parse(text);
let format = syntax;
try {
  let value;
  if (syntax === 'yaml') value = yaml();
  else if (syntax === 'toml') value = toml();
  else {
    let read = null;
    try { read = yaml(); } catch {}
    if (read && typeof read === 'object' && !Array.isArray(read)) value = read;
    else { format = 'toml'; value = toml(); }
  }
  parentPort.postMessage({ value });
} catch (e) {
  parentPort.postMessage({ format, message: String((e && e.message) || e).trimEnd() });
}
`;

const turns = new FairTurns(PARSE_LIMITS.running);
/** The callers with a document in the process (read or waiting). */
const reading = new Set<string>();

/** Who sends a document (a user's id; one key for callers the server does not tell apart), and which file it is. */
export interface ParseCaller {
  caller: string;
  file?: string;
}

/** Reads configuration text as `syntax` (`auto`: YAML, else TOML); syntax errors become a ConfigError. */
export async function parseConfigTextApart(
  text: string,
  syntax: 'json' | 'yaml' | 'toml' | 'auto',
  who: ParseCaller,
): Promise<unknown> {
  if (syntax === 'json') return parseConfigText(text, 'json');
  return parseApart(text, syntax, who);
}

/**
 * Parses YAML or TOML text in a worker thread, under the limits above; a syntax error, the
 * deadline or a crash is a ConfigError (about `file` when given); a second document of the same
 * caller, a full line or a wait past `waitMs` is a BusyError.
 */
export async function parseApart(text: string, syntax: 'yaml' | 'toml' | 'auto', who: ParseCaller): Promise<unknown> {
  if (reading.has(who.caller))
    throw new BusyError('a document of yours is being read; send the next one when it is done');
  if (turns.pendingCount >= PARSE_LIMITS.waiting)
    throw new BusyError('as many documents are being read as the server takes; try again in a moment');
  reading.add(who.caller);
  try {
    return await turns.run(
      who.caller,
      () => inWorker(text, syntax, who.file),
      AbortSignal.timeout(PARSE_LIMITS.waitMs),
    );
  } catch (e) {
    if ((e as Error)?.name === 'TimeoutError')
      throw new BusyError('as many documents are being read as the server takes; try again in a moment');
    throw e;
  } finally {
    reading.delete(who.caller);
  }
}

function inWorker(text: string, syntax: 'yaml' | 'toml' | 'auto', file?: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { text, syntax, parsers: PARSERS },
      resourceLimits: { maxOldGenerationSizeMb: PARSE_LIMITS.heapMb },
    });
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // The turn ends once the thread is gone, so that no more than `running` threads ever live.
      void worker.terminate().then(fn, fn);
    };
    const refused = (message: string) => new ConfigError([{ path: '', message }], file ? { file } : undefined);
    const timer = setTimeout(
      () => settle(() => reject(refused(`the configuration took more than ${PARSE_LIMITS.ms / 1000} s to read`))),
      PARSE_LIMITS.ms,
    );
    worker.once('message', (m: { value?: unknown; format?: string; message?: string }) =>
      settle(() =>
        m.message === undefined
          ? resolve(m.value)
          : reject(refused(`${String(m.format).toUpperCase()} syntax error: ${m.message}`)),
      ),
    );
    worker.once('error', (e) =>
      settle(() => reject(refused(`the configuration could not be read: ${(e as Error).message}`))),
    );
    worker.once('exit', () => settle(() => reject(refused('the configuration could not be read'))));
  });
}
