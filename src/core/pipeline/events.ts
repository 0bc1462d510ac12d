import type { Diagnostic } from './diagnostics.js';
import type { TransformationStat } from './report.js';

/** Where a transformation ran: on one source (its index) or on the whole list. */
export type Scope = { kind: 'source'; index: number; source: string } | { kind: 'global' };

/**
 * Progress of one compilation. The CLI prints these; the server streams them as
 * server-sent events and WebSocket messages.
 */
export type CompileEvent =
  | { type: 'source:start'; index: number; source: string }
  | { type: 'source:complete'; index: number; source: string; lineCount: number; durationMs: number }
  | { type: 'source:error'; index: number; source: string; error: string; skipped: boolean }
  | { type: 'transformation:start'; scope: Scope; name: string; inputCount: number }
  | ({ type: 'transformation:complete'; scope: Scope } & Omit<TransformationStat, 'scope'>)
  | { type: 'progress'; phase: 'load' | 'transform' | 'output'; completed: number; total: number }
  | { type: 'log'; level: 'debug' | 'info' | 'warn'; message: string }
  | { type: 'diagnostic'; diagnostic: Diagnostic };

export type EventSink = (event: CompileEvent) => void;
