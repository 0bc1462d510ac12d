import { randomUUID } from 'node:crypto';

/** A compile running on a WebSocket connection. */
export interface LiveCompile {
  sessionId: string;
  configurationName: string | null;
  startedAt: string;
}

/** An open WebSocket connection, as `/api/admin/agents/sessions` shows it. */
export interface LiveSession {
  id: string;
  userId: string | null;
  email: string | null;
  /** How the connection authenticated: a signed-in session or an API key (its id). */
  via: 'session' | 'key' | 'anonymous';
  keyId: string | null;
  address: string;
  connectedAt: string;
  compiles: LiveCompile[];
}

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
