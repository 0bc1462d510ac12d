import type { OpenAPIHono } from '@hono/zod-openapi';
import { upgradeWebSocket } from '@hono/node-server';
import type { WSContext } from 'hono/ws';
import type { Context } from 'hono';
import { problem } from '../problem.js';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { AppDeps } from '../deps.js';
import { checkedConfiguration, resultBody, runCompile } from './compile.js';
import { AbortedError } from '../../core/errors/aborted-error.js';
import { FlcError } from '../../core/errors/flc-error.js';

export interface WsTiming {
  maxConcurrentCompilations: number;
  heartbeatMs: number;
  idleMs: number;
}

export const WS_LIMITS: WsTiming = { maxConcurrentCompilations: 3, heartbeatMs: 30_000, idleMs: 5 * 60_000 };

const clientMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('compile'), sessionId: z.string().min(1), configuration: z.unknown(), benchmark: z.boolean().optional() }),
  z.object({ type: z.literal('cancel'), sessionId: z.string().min(1) }),
  z.object({ type: z.literal('ping') }),
]);

/**
 * The WebSocket compile protocol at `/api/ws/compile` and `/ws/compile`: a welcome, up to
 * three compilations at once per connection with their events, a cancel that aborts the
 * work, ping/pong, a heartbeat every 30 s and a close after 5 idle minutes.
 */
export function registerWebSocketRoutes(app: OpenAPIHono, deps: AppDeps, timing = WS_LIMITS): void {
  const handler = upgradeWebSocket(() => {
    const sessions = new Map<string, AbortController>();
    let heartbeat: NodeJS.Timeout | undefined;
    let idle: NodeJS.Timeout | undefined;
    const send = (ws: WSContext, message: object) => {
      if (ws.readyState === 1) ws.send(JSON.stringify(message));
    };
    const touch = (ws: WSContext) => {
      clearTimeout(idle);
      idle = setTimeout(() => ws.close(4000, 'idle timeout'), timing.idleMs);
      idle.unref();
    };

    const compileSession = async (ws: WSContext, sessionId: string, raw: unknown) => {
      if (sessions.has(sessionId)) return send(ws, { type: 'error', error: `session ${sessionId} is already compiling`, code: 'SESSION_EXISTS', sessionId });
      if (sessions.size >= timing.maxConcurrentCompilations) {
        return send(ws, { type: 'error', error: `at most ${timing.maxConcurrentCompilations} compilations at once per connection`, code: 'TOO_MANY_COMPILATIONS', sessionId });
      }
      const controller = new AbortController();
      sessions.set(sessionId, controller);
      try {
        const config = checkedConfiguration(raw);
        send(ws, { type: 'compile:started', sessionId, configurationName: config.name });
        const outcome = await runCompile(deps, config, (e) => send(ws, { type: 'event', sessionId, eventType: e.type, data: e }), controller.signal);
        send(ws, { type: 'compile:complete', sessionId, ...resultBody(config, outcome) });
      } catch (e) {
        if (e instanceof AbortedError || controller.signal.aborted) send(ws, { type: 'compile:cancelled', sessionId });
        // No stack traces to clients: the error's message and stable code only.
        else send(ws, { type: 'compile:error', sessionId, error: (e as Error).message, details: { code: e instanceof FlcError ? e.code : 'INTERNAL' } });
      } finally {
        sessions.delete(sessionId);
      }
    };

    return {
      onOpen(_event, ws) {
        send(ws, {
          type: 'welcome',
          version: deps.version,
          connectionId: randomUUID(),
          capabilities: { maxConcurrentCompilations: timing.maxConcurrentCompilations, supportsPauseResume: false, supportsStreaming: true },
        });
        heartbeat = setInterval(() => send(ws, { type: 'heartbeat', timestamp: new Date(deps.now()).toISOString() }), timing.heartbeatMs);
        heartbeat.unref();
        touch(ws);
      },
      onMessage(event, ws) {
        touch(ws);
        let parsed: z.infer<typeof clientMessage>;
        try {
          parsed = clientMessage.parse(JSON.parse(String(event.data)));
        } catch {
          return send(ws, { type: 'error', error: 'expected JSON {type: "compile" | "cancel" | "ping", …}', code: 'INVALID_MESSAGE' });
        }
        if (parsed.type === 'ping') return send(ws, { type: 'pong', timestamp: new Date(deps.now()).toISOString() });
        if (parsed.type === 'cancel') {
          const controller = sessions.get(parsed.sessionId);
          if (!controller) return send(ws, { type: 'error', error: `no compilation ${parsed.sessionId}`, code: 'UNKNOWN_SESSION', sessionId: parsed.sessionId });
          return controller.abort(new Error('cancelled by the client'));
        }
        void compileSession(ws, parsed.sessionId, parsed.configuration);
      },
      onClose() {
        clearInterval(heartbeat);
        clearTimeout(idle);
        for (const controller of sessions.values()) controller.abort(new Error('connection closed'));
      },
    };
  });
  // A plain GET (no upgrade) falls through the upgrade handler to this answer.
  const notUpgrade = (c: Context) => problem(c, 426, 'This endpoint speaks WebSocket: send an Upgrade: websocket request');
  app.get('/api/ws/compile', handler, notUpgrade);
  app.get('/ws/compile', handler, notUpgrade);
}
