import { randomUUID } from 'node:crypto';
import { z } from '@hono/zod-openapi';

/** An open WebSocket connection and its running compiles, as `/api/admin/agents/sessions` shows it. */
export const liveSession = z.object({
  id: z.string(),
  userId: z.string().nullable(),
  email: z.string().nullable(),
  /** How the connection authenticated: a signed-in session or an API key (its id). */
  via: z.enum(['session', 'key', 'anonymous']),
  keyId: z.string().nullable(),
  address: z.string(),
  connectedAt: z.string(),
  compiles: z.array(
    z.object({ sessionId: z.string(), configurationName: z.string().nullable(), startedAt: z.string() }),
  ),
});
type LiveSession = z.infer<typeof liveSession>;
type LiveCompile = LiveSession['compiles'][number];

/** This process's open WebSocket connections and their running compiles (each server shows its own). */
export class LiveSessions {
  private readonly open = new Map<
    string,
    { session: Omit<LiveSession, 'compiles'>; compiles: Map<string, LiveCompile> }
  >();

  constructor(private readonly now: () => number) {}

  connect(who: Omit<LiveSession, 'id' | 'connectedAt' | 'compiles'>): string {
    const id = randomUUID();
    this.open.set(id, {
      session: { ...who, id, connectedAt: new Date(this.now()).toISOString() },
      compiles: new Map(),
    });
    return id;
  }

  compileStarted(id: string, sessionId: string, configurationName: string | null): void {
    this.open
      .get(id)
      ?.compiles.set(sessionId, { sessionId, configurationName, startedAt: new Date(this.now()).toISOString() });
  }

  compileEnded(id: string, sessionId: string): void {
    this.open.get(id)?.compiles.delete(sessionId);
  }

  disconnect(id: string): void {
    this.open.delete(id);
  }

  /** Oldest connection first. */
  list(): LiveSession[] {
    return [...this.open.values()].map(({ session, compiles }) => ({ ...session, compiles: [...compiles.values()] }));
  }
}
