import type { Generated } from 'kysely';
import type { JobKind, JobState } from './jobs.js';

/**
 * The store's tables as the query builder sees them, one member per table (`Database['users']`).
 * Timestamps are ISO-8601 text and flags are 0/1 integers on both engines, so one query serves
 * both. The configuration tables that only their section descriptors reach (announcements, user
 * and API groups: `config-sections.ts` lists their columns) are not repeated here.
 */
export interface Database {
  deployments: { id: Generated<number>; version: string; node_version: string; started_at: string };
  health_checks: { id: Generated<number>; status: string; version: string; checked_at: string };
  smoke: { id: Generated<number>; written_at: string };
  users: {
    id: string;
    email: string;
    identifier_type: Generated<string>;
    name: string | null;
    password_hash: string;
    password_salt: string;
    password_iterations: number;
    role: string;
    tier: string;
    banned: Generated<number>;
    banned_at: string | null;
    ban_reason: string | null;
    api_disabled: Generated<number>;
    created_at: string;
    updated_at: string | null;
  };
  sessions: { token_hash: string; user_id: string; created_at: string; expires_at: string };
  api_keys: {
    id: string;
    user_id: string;
    name: string;
    /** The first characters of the key, to tell keys apart. */
    prefix: string;
    key_hash: string;
    /** The key this one was made with; null when a session made it. */
    parent_id: string | null;
    /** A JSON array of scope names. */
    scopes: string;
    created_at: string;
    expires_at: string | null;
    revoked_at: string | null;
    last_used_at: string | null;
  };
  tiers: {
    id: Generated<number>;
    tier_name: string;
    order_rank: number;
    rate_limit: number;
    display_name: string;
    description: string;
    /** A JSON object. */
    features: string;
    is_active: Generated<number>;
    created_at: Generated<string>;
    updated_at: Generated<string>;
  };
  scopes: {
    id: Generated<number>;
    scope_name: string;
    display_name: string;
    description: string;
    required_tier: string;
    is_active: Generated<number>;
  };
  roles: {
    id: Generated<number>;
    role_name: string;
    display_name: string;
    description: string;
    /** A JSON array of permission names. */
    permissions: string;
    is_active: Generated<number>;
    created_at: Generated<string>;
    updated_at: Generated<string>;
  };
  role_assignments: {
    id: Generated<number>;
    identity_user_id: string;
    role_name: string;
    assigned_by: string;
    assigned_at: string;
    expires_at: string | null;
  };
  endpoint_overrides: {
    id: Generated<number>;
    /** A path, or a path prefix ending in `/*`. */
    path_pattern: string;
    /** An HTTP method or `*`. */
    method: Generated<string>;
    /** null keeps the route's default tier. */
    required_tier: string | null;
    /** A JSON array of scope names, or null. */
    required_scopes: string | null;
    is_public: Generated<number>;
    is_active: Generated<number>;
  };
  /** Requests of one user on one UTC day to one route. */
  usage_daily: {
    user_id: string;
    /** YYYY-MM-DD (UTC). */
    day: string;
    /** Method and route pattern, e.g. `POST /api/compile`. */
    route: string;
    count: number;
    first_seen: string;
    last_seen: string;
  };
  audit_log: {
    id: Generated<number>;
    actor_id: string | null;
    actor_email: string | null;
    action: string;
    resource_type: string;
    resource_id: string | null;
    old_values: string | null;
    new_values: string | null;
    ip_address: string | null;
    user_agent: string | null;
    status: 'success' | 'failure' | 'denied';
    metadata: string | null;
    created_at: string;
  };
  feature_flags: { flag_key: string; definition: string; updated_at: string; updated_by: string };
  user_group_members: { group_name: string; identity_user_id: string; added_at: string };
  config_snapshots: { id: Generated<number>; created_at: string; created_by: string; reason: string; bundle: string };
  jobs: {
    id: string;
    owner_id: string;
    kind: JobKind;
    /** See `docs/server.md` ("Asynchronous compiles") for the transitions. */
    state: JobState;
    /** A JSON object: what to compile. */
    payload: string;
    /** A JSON object, written with the state `completed` in one statement. */
    result: string | null;
    error: string | null;
    attempts: Generated<number>;
    created_at: string;
    started_at: string | null;
    finished_at: string | null;
    duration_ms: number | null;
    lease_owner: string | null;
    lease_until: string | null;
  };
  workflow_steps: {
    job_id: string;
    step_index: number;
    name: string;
    state: 'running' | 'completed' | 'failed';
    attempts: Generated<number>;
    started_at: string | null;
    finished_at: string | null;
    duration_ms: number | null;
    /** A JSON value: what later steps (and a resumed run) read instead of doing the step again. */
    output: string | null;
    error: string | null;
  };
  /** A one-time message behind a flash token. */
  flash_messages: {
    token: string;
    /** An error code of the registry (`src/server/error-codes.ts`), if the message is an error's. */
    code: string | null;
    message: string;
    /** `info` by default (the specification's field). */
    type: string;
    created_at: string;
    expires_at: string;
  };
  /** A browser's error report. */
  error_events: {
    id: string;
    source: string;
    severity: 'low' | 'medium' | 'high' | 'critical';
    message: string;
    stack: string | null;
    /** The client's context object, as JSON text. */
    context: string | null;
    url: string | null;
    user_agent: string | null;
    session_id: string | null;
    created_at: string;
  };
  rule_sets: {
    id: string;
    owner_id: string;
    name: string;
    description: string | null;
    /** A JSON array of rule lines. */
    rules: string;
    rule_count: number;
    created_at: string;
    updated_at: string;
  };
}
