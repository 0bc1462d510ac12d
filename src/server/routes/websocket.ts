import type { OpenAPIHono } from '@hono/zod-openapi';
import { upgradeWebSocket } from '@hono/node-server';
import type { WSContext } from 'hono/ws';
import type { Context, MiddlewareHandler } from 'hono';
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import { clientMessage as safeMessage, problem, problemResponse } from '../problem.js';
import { plainRoute } from '../routing/route.js';
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import { z } from 'zod';
import type { AppDeps } from '../deps.js';
import { compileFor, streamedCompile } from '../compile/service.js';
import { callerOf } from '../access/gate.js';
import { clientAddress } from '../client-address.js';
import { challengeRefusal } from '../challenge.js';
import { AbortedError, FlcError } from '../../core/errors/index.js';

/**
 * A refused upgrade (401, 403, 429, …) answered with its problem body. The Node adaptor answers
 * a refused upgrade with the status and headers only, so the response is written to the socket
 * here, which the adaptor then leaves alone. Runs around the access gate of the WebSocket routes.
 */
export const answerRefusedUpgrade: MiddlewareHandler = async (c, next) => {
  await next();
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const socket = incoming?.socket;
  if (c.req.header('upgrade')?.toLowerCase() !== 'websocket' || c.res.status < 400 || !socket || socket.destroyed)
    return;
  const body = Buffer.from(await c.res.clone().arrayBuffer());
  const lines = [`HTTP/1.1 ${c.res.status} ${STATUS_CODES[c.res.status] ?? ''}`, 'connection: close'];
  c.res.headers.forEach((value, name) => {
    if (name !== 'content-length' && name !== 'connection') lines.push(`${name}: ${value}`);
  });
  lines.push(`content-length: ${body.length}`);
  socket.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]));
  // Ended here, the socket takes no second answer: the adaptor's own empty refusal after this is
  // a write after end, whose error its socket handler swallows.
  socket.destroySoon();
};

export const WS_LIMITS = {
  maxConcurrentCompilations: 3,
  heartbeatMs: 30_000,
  idleMs: 5 * 60_000,
  /**
   * Bytes of messages a connection may have waiting to be sent (64 MiB); one still above it
   * `drainMs` (10 s) after it went above is cut off.
   */
  maxBufferedBytes: 64 * 1024 * 1024,
  drainMs: 10_000,
};
export type WsTiming = typeof WS_LIMITS;

/**
 * A message longer than this (a ping or a cancel needs a few dozen characters) counts against the
 * caller's rate limit before it is parsed, as a request's body would: unmetered, one connection
 * of 1 MB messages that are not compiles (invalid, or a padded ping) held the main thread.
 */
export const UNMETERED_MESSAGE_BYTES = 4096;
/** Large messages of a connection that may wait for the meter at once; more are refused. */
const MESSAGES_WAITING = 4;

const clientMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('compile'),
    sessionId: z.string().min(1),
    configuration: z.unknown(),
    benchmark: z.boolean().optional(),
    challengeToken: z.string().optional(),
    turnstileToken: z.string().optional(),
  }),
  z.object({ type: z.literal('cancel'), sessionId: z.string().min(1) }),
  z.object({ type: z.literal('ping') }),
]);

/**
 * The WebSocket compile protocol at `/api/ws/compile` and `/ws/compile`: a welcome, up to
 * three compilations at once per connection with their events, a cancel that aborts the
 * work, ping/pong, a heartbeat every 30 s and a close after 5 idle minutes.
 */
export function registerWebSocketRoutes(app: OpenAPIHono, deps: AppDeps, timing = WS_LIMITS): void {
  const handler = upgradeWebSocket((c) => {
    // The caller as the gate last found them: each compile (and large message) asks the gate again,
    // so a revoked key, a ban or a tier changed since the upgrade applies to the next one.
    let caller = callerOf(c);
    const live = deps.liveSessions;
    let liveId = '';
    const sessions = new Map<string, AbortController>();
    let heartbeat: NodeJS.Timeout | undefined;
    let idle: NodeJS.Timeout | undefined;
    let draining: NodeJS.Timeout | undefined;
    const send = (ws: WSContext, message: object) => {
      if (ws.readyState !== 1) return;
      ws.send(JSON.stringify(message));
      // Messages a client does not read wait in this process's memory: one that has not taken
      // them below the bound within `drainMs` is cut off (the close cancels its compiles).
      const raw = ws.raw as { bufferedAmount?: number; terminate?: () => void } | undefined;
      if (draining || (raw?.bufferedAmount ?? 0) <= timing.maxBufferedBytes) return;
      draining = setTimeout(() => {
        draining = undefined;
        if ((raw?.bufferedAmount ?? 0) > timing.maxBufferedBytes) raw?.terminate?.();
      }, timing.drainMs);
      draining.unref();
    };
    /** An `error` message: its text, its stable code and the compilation it is about, if any. */
    const fail = (ws: WSContext, code: string, error: string, sessionId?: string) =>
      send(ws, { type: 'error', error, code, ...(sessionId === undefined ? {} : { sessionId }) });
    /** Idle: no message from the client and no compilation running for `idleMs`. */
    const touch = (ws: WSContext) => {
      clearTimeout(idle);
      idle = setTimeout(() => (sessions.size > 0 ? touch(ws) : ws.close(4000, 'idle timeout')), timing.idleMs);
      idle.unref();
    };

    const compileSession = async (ws: WSContext, sessionId: string, raw: unknown, metered: boolean, token?: string) => {
      if (ws.readyState !== 1) return; // read after the close (it waited for the meter): nothing would abort it
      if (sessions.has(sessionId))
        return fail(ws, 'SESSION_EXISTS', `session ${sessionId} is already compiling`, sessionId);
      if (sessions.size >= timing.maxConcurrentCompilations) {
        const most = `at most ${timing.maxConcurrentCompilations} compilations at once per connection`;
        return fail(ws, 'TOO_MANY_COMPILATIONS', most, sessionId);
      }
      const controller = new AbortController();
      sessions.set(sessionId, controller);
      try {
        // Each compile is let in, and counted, as a `POST /api/compile` would be.
        if (!metered && !(await admitted(ws, sessionId))) return;
        // The bot challenge of `POST /api/compile`, a token in each compile message.
        const refused = await challengeRefusal(deps.challenge, token, controller.signal);
        controller.signal.throwIfAborted(); // cancelled, or the connection closed, while it was checked
        if (refused) return fail(ws, 'CHALLENGE_FAILED', refused, sessionId);
        const { deps: own, ...checked } = compileFor(deps, caller, raw);
        live?.compileStarted(liveId, sessionId, checked.config.name ?? null);
        send(ws, { type: 'compile:started', sessionId, configurationName: checked.config.name });
        // Every event `/api/compile/stream` sends, in its shapes.
        const forward = (eventType: string, data: unknown) => send(ws, { type: 'event', sessionId, eventType, data });
        const body = await streamedCompile(own, checked, forward, controller.signal);
        send(ws, { type: 'compile:complete', sessionId, ...body });
      } catch (e) {
        if (e instanceof AbortedError || controller.signal.aborted) send(ws, { type: 'compile:cancelled', sessionId });
        // No stack traces to clients: the error's message and stable code only.
        else
          send(ws, {
            type: 'compile:error',
            sessionId,
            error: safeMessage(e),
            details: { code: e instanceof FlcError ? e.code : 'INTERNAL' },
          });
      } finally {
        sessions.delete(sessionId);
        live?.compileEnded(liveId, sessionId);
        touch(ws);
      }
    };

    /**
     * Asks the gate again for one more request: false, the message answered, when it refuses. The
     * credentials no longer let in (401, 403) end the connection; a rate limit leaves it open.
     */
    const admitted = async (ws: WSContext, sessionId?: string) => {
      const now = await caller.again();
      if (!('status' in now)) {
        caller = now;
        return true;
      }
      const refused = now.status === 401 || now.status === 403;
      const code = now.status === 429 ? 'RATE_LIMITED' : refused ? 'ACCESS_REFUSED' : 'UNAVAILABLE';
      fail(ws, code, now.message, sessionId);
      if (refused) ws.close(4003, 'access refused');
      return false;
    };

    /**
     * Reads one message: `metered` when it was counted against the caller's rate limit already
     * (a large one, before it was parsed).
     */
    const read = (ws: WSContext, text: string, metered: boolean) => {
      let parsed: z.infer<typeof clientMessage>;
      try {
        parsed = clientMessage.parse(JSON.parse(text));
      } catch {
        return fail(ws, 'INVALID_MESSAGE', 'expected JSON {type: "compile" | "cancel" | "ping", …}');
      }
      if (parsed.type === 'ping') return send(ws, { type: 'pong', timestamp: new Date(deps.now()).toISOString() });
      if (parsed.type === 'cancel') {
        const controller = sessions.get(parsed.sessionId);
        if (!controller) return fail(ws, 'UNKNOWN_SESSION', `no compilation ${parsed.sessionId}`, parsed.sessionId);
        return controller.abort(new Error('cancelled by the client'));
      }
      const token = parsed.challengeToken ?? parsed.turnstileToken;
      void compileSession(ws, parsed.sessionId, parsed.configuration, metered, token);
    };

    /** Large messages waiting for the meter (and those after them), read one at a time in the order they came. */
    const inOrder = pLimit(1);

    return {
      onOpen(_event, ws) {
        liveId =
          live?.connect({
            userId: caller.user?.id ?? null,
            email: caller.user?.email ?? null,
            via: caller.key ? 'key' : caller.user ? 'session' : 'anonymous',
            keyId: caller.key?.id ?? null,
            address: clientAddress(c),
          }) ?? '';
        send(ws, {
          type: 'welcome',
          version: deps.version,
          connectionId: randomUUID(),
          capabilities: {
            maxConcurrentCompilations: timing.maxConcurrentCompilations,
            supportsPauseResume: false,
            supportsStreaming: true,
          },
        });
        heartbeat = setInterval(
          () => send(ws, { type: 'heartbeat', timestamp: new Date(deps.now()).toISOString() }),
          timing.heartbeatMs,
        );
        heartbeat.unref();
        touch(ws);
      },
      onMessage(event, ws) {
        touch(ws);
        const data = event.data;
        // Its size without decoding it (a refused one is never decoded): bytes are at least as many as characters.
        const size = typeof data === 'string' ? data.length : ((data as { byteLength?: number }).byteLength ?? 0);
        const large = size > UNMETERED_MESSAGE_BYTES;
        const text = () => String(data);
        const waiting = inOrder.activeCount + inOrder.pendingCount;
        // Small messages are read at once, unless earlier ones wait for the meter (order is kept).
        if (!large && waiting === 0) return read(ws, text(), false);
        if (waiting >= MESSAGES_WAITING)
          return fail(
            ws,
            'RATE_LIMITED',
            `at most ${MESSAGES_WAITING} large messages may wait to be read; wait for answers`,
          );
        void inOrder(async () => {
          try {
            if (large && !(await admitted(ws))) return;
            read(ws, text(), large);
          } catch {
            fail(ws, 'INTERNAL', 'the message could not be counted; try again');
          }
        });
      },
      onClose() {
        live?.disconnect(liveId);
        clearInterval(heartbeat);
        clearTimeout(idle);
        clearTimeout(draining);
        for (const controller of sessions.values()) controller.abort(new Error('connection closed'));
      },
    };
  });
  // A plain GET (no upgrade) falls through the upgrade handler to this answer.
  const notUpgrade = (c: Context) =>
    problem(c, 426, 'This endpoint speaks WebSocket: send an Upgrade: websocket request');
  for (const path of ['/api/ws/compile', '/ws/compile'])
    plainRoute(app, {
      access: { tier: 'free', scope: 'compile' },
      // The short path's twin is the long one: overrides of either apply to both.
      ...(path === '/ws/compile' ? { twin: { method: 'GET', path: '/api/ws/compile' } } : {}),
      streamLimit: true,
      challenge: true,
      transport: 'websocket',
      method: 'get',
      path,
      summary: 'WebSocket compile protocol (welcome, compile, cancel, ping; events, results)',
      responses: {
        101: { description: 'Switching to the WebSocket protocol' },
        426: problemResponse('Not a WebSocket upgrade request'),
      },
      handlers: [handler, notUpgrade],
    });
}
