/**
 * Supabase Realtime's `postgres_changes`, for tests: a WebSocket endpoint at `/realtime/v1/websocket`
 * speaking the protocol of the installed `@supabase/realtime-js` (read in its dist/module: serializer.js,
 * RealtimeChannel.js, RealtimeClient.js, and @supabase/phoenix), fed by the real PostgreSQL.
 *
 * Protocol (vsn 2.0.0 only, the client's default; frames are JSON arrays [join_ref, ref, topic, event, payload]):
 *   phx_join on `realtime:<name>` with {config: {postgres_changes: [{event, schema, table, filter?}], …},
 *     access_token} → phx_reply {status: 'ok', response: {postgres_changes: [{id, event, schema, table,
 *     filter}]}} (ids in the client's order, as RealtimeChannel._updatePostgresBindings requires), then a
 *     `system` "Subscribed to PostgreSQL"; or {status: 'error', response: {reason}} when refused.
 *   postgres_changes → {ids, data: {schema, table, commit_timestamp, type, columns, record, old_record, errors}}
 *   heartbeat on `phoenix` → phx_reply ok · access_token {access_token} → the channel's claims are replaced
 *   (a bad or expired one closes the channel) · phx_leave → phx_reply ok, then phx_close.
 *   At the token's `exp` the channel gets a `system` error and phx_close, as the real server does.
 *
 * A join is refused unless it carries a valid signed-in token (`role` and `exp` required; the anon key or
 * no token is refused): a join sent before the client knew its token fails loudly. The
 * real server would accept an anon join and then deliver nothing, since anon may read none of our tables.
 * `private` channels, broadcast and presence are not served: such a join is refused, naming it.
 *
 * Feed: LISTEN/NOTIFY. At start it installs, in the test database only, an AFTER INSERT/UPDATE/DELETE row
 * trigger on every table of the `supabase_realtime` publication (the migrations choose which tables stream)
 * that stores the change in `likeness_fake_realtime.changes` and notifies its id. NOTIFY is delivered only
 * on commit, in commit order, like the WAL the real server reads (this cluster has wal_level=replica, so no
 * logical decoding), with no polling delay; the row holds the change so size limits of NOTIFY don't apply.
 *
 * Delivery, per subscriber, as Realtime's `realtime.apply_rls` (WALRUS) does — read in supabase/realtime,
 * lib/realtime/tenants/repo/migrations/: 20260709120000_fix_apply_rls_filter_role_leak.ex (apply_rls),
 * 20260626120000_readd_postgrest_filter_ops.ex (is_visible_through_filters), 20260528120000_wal2json_escape_
 * special_chars.ex (list_changes), and Supabase's guide "Postgres Changes" (docs/guides/realtime/postgres-changes):
 *  - Only the actions the `supabase_realtime` publication publishes are decoded at all (list_changes passes
 *    wal2json `actions` from the publication's pubinsert/pubupdate/pubdelete), read at each change here.
 *  - The filter (`column=eq.value`, `column=in.(a,b)`) is tested against the columns the WAL carries, compared
 *    as the column's type: the new record for INSERT/UPDATE; for DELETE the old record, which holds only the
 *    replica identity (the primary key unless the table is REPLICA IDENTITY FULL). A filter naming a column
 *    the record lacks fails, so under the default identity a filtered subscription gets no DELETE ("Delete
 *    events are not filterable"); an unfiltered one gets them all.
 *  - INSERT/UPDATE then reach the subscriber only if its token may select the row under row-level security —
 *    checked by selecting the row by primary key in a read-only transaction as that role with that token's
 *    claims (against the row as it is when the change is processed, as WALRUS's prepared statement does).
 *  - DELETE is not checked against row-level security ("RLS policies are not applied to DELETE statements"):
 *    it reaches every subscription it passes the filter of, whoever's row it was. Its old_record holds the
 *    replica identity's columns, only the primary key when the table has row-level security on; an UPDATE's
 *    old_record holds the replica identity's columns.
 * Which is why clients treat events as a signal to refetch, not as data.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import pg from 'pg';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Claims } from '../helpers/supabase-db.ts';
import type { Authenticate } from './postgrest-server.ts';

export interface RealtimeSubscription {
  id: number;
  event: '*' | 'INSERT' | 'UPDATE' | 'DELETE';
  schema: string;
  table: string;
  filter?: string;
}

/** A joined channel as the server holds it. */
export interface RealtimeChannelInfo {
  topic: string;
  joinRef: string;
  /** The `sub` of the token the channel currently runs under. */
  sub: string;
  /** `exp` of that token (seconds). */
  tokenExpiresAt: number;
  /** How many `access_token` updates the channel accepted. */
  accessTokenUpdates: number;
  subscriptions: RealtimeSubscription[];
}

export interface RealtimeConnectionInfo {
  id: number;
  heartbeats: number;
  channels: RealtimeChannelInfo[];
}

export interface RealtimeFake {
  /** Takes an HTTP upgrade for /realtime/v1/websocket (the stack routes to it). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Open connections and their joined channels, now. */
  connections(): RealtimeConnectionInfo[];
  /** Every joined channel on every connection, now. */
  channels(): RealtimeChannelInfo[];
  /** postgres_changes messages sent so far: to whom (sub), on which topic, which change. */
  deliveries: { sub: string; topic: string; table: string; type: string }[];
  /** Cuts every socket at once, as a network drop would (no close frame). */
  dropAll(): void;
  /** Resolves once every change committed so far has been delivered (or found to reach nobody). */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

export interface RealtimeFakeOptions {
  /** The scratch database (its owner): triggers are installed there and changes read from it. */
  databaseUrl: string;
  /** Connections as the owner, for visibility checks (each switches role inside its transaction). */
  pool: pg.Pool;
  anonKey: string;
  authenticate: Authenticate;
}

const CHANNEL = 'likeness_fake_realtime';

/** Installed by the fake in the test database only; production never has it. */
const FEED_SQL = `
create schema if not exists likeness_fake_realtime;
revoke all on schema likeness_fake_realtime from public;
create table if not exists likeness_fake_realtime.changes (
  id bigserial primary key,
  committed_at timestamptz not null default clock_timestamp(),
  schema_name text not null, table_name text not null, type text not null, record jsonb, old_record jsonb);
create or replace function likeness_fake_realtime.capture() returns trigger
  language plpgsql security definer set search_path = '' as $$
declare change_id bigint;
begin
  insert into likeness_fake_realtime.changes (schema_name, table_name, type, record, old_record)
    values (TG_TABLE_SCHEMA, TG_TABLE_NAME, TG_OP,
            case when TG_OP <> 'DELETE' then to_jsonb(NEW) end, case when TG_OP <> 'INSERT' then to_jsonb(OLD) end)
    returning id into change_id;
  perform pg_notify('${CHANNEL}', change_id::text);
  return null;
end $$;
`;

interface TableMeta {
  columns: { name: string; type: string }[];
  primaryKey: string[];
}

interface Channel extends RealtimeChannelInfo {
  claims: Claims;
  expiryTimer: NodeJS.Timeout | null;
}

interface Connection {
  id: number;
  ws: WebSocket;
  heartbeats: number;
  channels: Map<string, Channel>;
}

type Frame = [string | null, string | null, string, string, Record<string, unknown>];

/** A stable id for a subscription's parameters (the real server uses :erlang.phash2 of them). */
function subscriptionId(params: Omit<RealtimeSubscription, 'id'>): number {
  return (
    createHash('sha1')
      .update(JSON.stringify([params.event, params.schema, params.table, params.filter ?? null]))
      .digest()
      .readUInt32BE(0) >>> 1
  );
}

/** Realtime's filter syntax: `column=op.value`; eq and in are enough for the SPA. */
function parseRealtimeFilter(filter: string, meta: TableMeta): { column: string; values: string[] } {
  const m = /^([a-z_][a-z0-9_]*)=(eq|in)\.(.*)$/.exec(filter);
  if (!m) throw new Error(`unsupported filter "${filter}" (the fake knows column=eq.value and column=in.(a,b))`);
  const [, column, op, operand] = m;
  if (!meta.columns.some((c) => c.name === column)) throw new Error(`unknown column "${column}" in filter "${filter}"`);
  if (op === 'eq') return { column, values: [operand] };
  const list = /^\((.*)\)$/.exec(operand);
  if (!list) throw new Error(`malformed in filter "${filter}"`);
  return { column, values: list[1].split(',') };
}

export async function createRealtimeFake(opts: RealtimeFakeOptions): Promise<RealtimeFake> {
  // Tables that stream, their columns and primary keys, from the database the migrations built.
  await opts.pool.query(FEED_SQL);
  const { rows: published } = await opts.pool.query<{ table: string }>(
    `select tablename as table from pg_publication_tables where pubname = 'supabase_realtime' and schemaname = 'public'`,
  );
  const tables = new Map<string, TableMeta>();
  for (const { table } of published) {
    await opts.pool.query(
      `create or replace trigger likeness_fake_realtime after insert or update or delete on public."${table}" for each row execute function likeness_fake_realtime.capture()`,
    );
    const { rows: columns } = await opts.pool.query<{ name: string; type: string }>(
      `select a.attname as name, t.typname as type from pg_attribute a join pg_type t on t.oid = a.atttypid
        where a.attrelid = $1::regclass and a.attnum > 0 and not a.attisdropped order by a.attnum`,
      [`public."${table}"`],
    );
    const { rows: pk } = await opts.pool.query<{ name: string }>(
      `select a.attname as name from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
        where i.indrelid = $1::regclass and i.indisprimary order by array_position(i.indkey::int2[], a.attnum)`,
      [`public."${table}"`],
    );
    tables.set(table, { columns, primaryKey: pk.map((r) => r.name) });
  }

  const listener = new pg.Client({ connectionString: opts.databaseUrl });
  listener.on('error', () => {});
  await listener.connect();
  await listener.query(`listen ${CHANNEL}`);

  const connections = new Map<number, Connection>();
  const deliveries: RealtimeFake['deliveries'] = [];
  let nextConnectionId = 1;
  let stopped = false;
  // Changes are processed one after another, in commit order.
  let queue: Promise<void> = Promise.resolve();

  const wss = new WebSocketServer({ noServer: true });

  function send(conn: Connection, frame: Frame): void {
    if (conn.ws.readyState === conn.ws.OPEN) conn.ws.send(JSON.stringify(frame));
  }

  function closeChannel(conn: Connection, channel: Channel, message: string): void {
    if (channel.expiryTimer) clearTimeout(channel.expiryTimer);
    conn.channels.delete(channel.topic);
    const name = channel.topic.replace(/^realtime:/, '');
    send(conn, [channel.joinRef, null, channel.topic, 'system', { extension: 'system', status: 'error', message, channel: name }]);
    send(conn, [channel.joinRef, null, channel.topic, 'phx_close', {}]);
  }

  function armExpiry(conn: Connection, channel: Channel): void {
    if (channel.expiryTimer) clearTimeout(channel.expiryTimer);
    const ms = channel.tokenExpiresAt * 1000 - Date.now();
    channel.expiryTimer = setTimeout(() => closeChannel(conn, channel, 'Token has expired 0 seconds ago'), Math.max(0, ms));
    channel.expiryTimer.unref();
  }

  /** The claims of a token a channel may run under (with its sub and exp), or why not. */
  async function channelClaims(
    token: unknown,
  ): Promise<{ ok: true; claims: Claims; sub: string; exp: number } | { ok: false; reason: string }> {
    if (typeof token !== 'string' || token === '' || token === opts.anonKey) {
      return {
        ok: false,
        reason: 'Unauthorized: no user access_token, only the anon key or nothing (call realtime.setAuth before subscribing)',
      };
    }
    const auth = await opts.authenticate(token);
    if (!auth.ok) return { ok: false, reason: `InvalidJWTToken: ${auth.message}` };
    const { role, exp, sub } = auth.claims;
    if (typeof role !== 'string' || typeof exp !== 'number')
      return { ok: false, reason: 'InvalidJWTToken: Fields `role` and `exp` are required in JWT' };
    // PostgREST's clock leeway does not apply here: an expired token is refused outright.
    const expiredFor = Math.floor(Date.now() / 1000) - exp;
    if (expiredFor >= 0) return { ok: false, reason: `InvalidJWTToken: Token has expired ${expiredFor} seconds ago` };
    if (auth.role !== 'authenticated' || typeof sub !== 'string')
      return { ok: false, reason: 'Unauthorized: only signed-in users may subscribe' };
    return { ok: true, claims: auth.claims, sub, exp };
  }

  async function join(conn: Connection, [joinRef, ref, topic]: Frame, payload: Record<string, unknown>): Promise<void> {
    const refuse = (reason: string) => send(conn, [joinRef, ref, topic, 'phx_reply', { status: 'error', response: { reason } }]);
    if (!topic.startsWith('realtime:')) return refuse(`unsupported topic "${topic}"`);
    const config = (payload.config ?? {}) as { private?: boolean; presence?: { enabled?: boolean }; postgres_changes?: unknown };
    if (config.private) return refuse('the fake serves public channels only (config.private is true)');
    if (config.presence?.enabled) return refuse('the fake does not serve presence');
    const auth = await channelClaims(payload.access_token);
    if (!auth.ok) return refuse(auth.reason);

    const wanted = Array.isArray(config.postgres_changes) ? (config.postgres_changes as Record<string, unknown>[]) : [];
    const subscriptions: RealtimeSubscription[] = [];
    for (const w of wanted) {
      const event = w.event as RealtimeSubscription['event'];
      const meta = tables.get(String(w.table));
      if (!['*', 'INSERT', 'UPDATE', 'DELETE'].includes(String(event)))
        return refuse(`Unable to subscribe to changes with given parameters: unknown event "${String(event)}"`);
      if (w.schema !== 'public' || !meta) {
        return refuse(
          `Unable to subscribe to changes with given parameters: ${String(w.schema)}.${String(w.table)} is not in the supabase_realtime publication`,
        );
      }
      const filter = typeof w.filter === 'string' ? w.filter : undefined;
      if (filter !== undefined) {
        try {
          parseRealtimeFilter(filter, meta);
        } catch (err) {
          return refuse(`Unable to subscribe to changes with given parameters: ${(err as Error).message}`);
        }
      }
      const params = { event, schema: 'public', table: String(w.table), ...(filter !== undefined ? { filter } : {}) };
      subscriptions.push({ id: subscriptionId(params), ...params });
    }

    // Phoenix: a second join of a topic on the same socket replaces the first.
    const previous = conn.channels.get(topic);
    if (previous?.expiryTimer) clearTimeout(previous.expiryTimer);
    const channel: Channel = {
      topic,
      joinRef: joinRef ?? '',
      sub: auth.sub,
      tokenExpiresAt: auth.exp,
      accessTokenUpdates: 0,
      subscriptions,
      claims: auth.claims,
      expiryTimer: null,
    };
    conn.channels.set(topic, channel);
    armExpiry(conn, channel);
    send(conn, [joinRef, ref, topic, 'phx_reply', { status: 'ok', response: { postgres_changes: subscriptions } }]);
    if (subscriptions.length) {
      send(conn, [
        joinRef,
        null,
        topic,
        'system',
        { message: 'Subscribed to PostgreSQL', status: 'ok', extension: 'postgres_changes', channel: topic.replace(/^realtime:/, '') },
      ]);
    }
  }

  async function onFrame(conn: Connection, frame: Frame): Promise<void> {
    const [joinRef, ref, topic, event, payload] = frame;
    if (topic === 'phoenix' && event === 'heartbeat') {
      conn.heartbeats++;
      return send(conn, [null, ref, 'phoenix', 'phx_reply', { status: 'ok', response: {} }]);
    }
    if (event === 'phx_join') return join(conn, frame, payload ?? {});
    const channel = conn.channels.get(topic);
    if (!channel || (joinRef !== null && joinRef !== channel.joinRef)) {
      return send(conn, [joinRef, ref, topic, 'phx_reply', { status: 'error', response: { reason: 'unmatched topic' } }]);
    }
    if (event === 'phx_leave') {
      if (channel.expiryTimer) clearTimeout(channel.expiryTimer);
      conn.channels.delete(topic);
      send(conn, [joinRef, ref, topic, 'phx_reply', { status: 'ok', response: {} }]);
      return send(conn, [joinRef, null, topic, 'phx_close', {}]);
    }
    if (event === 'access_token') {
      const auth = await channelClaims(payload?.access_token);
      if (!auth.ok) return closeChannel(conn, channel, auth.reason);
      channel.claims = auth.claims;
      channel.sub = auth.sub;
      channel.tokenExpiresAt = auth.exp;
      channel.accessTokenUpdates++;
      armExpiry(conn, channel);
      return;
    }
    send(conn, [
      joinRef,
      ref,
      topic,
      'phx_reply',
      { status: 'error', response: { reason: `the fake does not serve the event "${event}"` } },
    ]);
  }

  /** Whether `claims` may select the changed row now, under row-level security (found by its primary key). */
  async function visible(claims: Claims, table: string, meta: TableMeta, record: Record<string, unknown>): Promise<boolean> {
    const values = meta.primaryKey.map((col) => record[col]);
    const conditions = meta.primaryKey.map((col, i) => `"${col}" = $${i + 1}`);
    const client = await opts.pool.connect();
    try {
      await client.query('begin read only');
      await client.query(`select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)`, [
        JSON.stringify(claims),
      ]);
      const { rowCount } = await client.query(`select 1 from public."${table}" where ${conditions.join(' and ')}`, values);
      return (rowCount ?? 0) > 0;
    } catch (err) {
      if ((err as { code?: string }).code === '42501') return false;
      throw err;
    } finally {
      await client.query('rollback').catch(() => {});
      client.release();
    }
  }

  /**
   * Whether the subscription's filter holds for the columns the change carries (is_visible_through_filters):
   * a column the record lacks, or a null, fails; values compare as the column's type.
   */
  async function passesFilter(filter: string | undefined, meta: TableMeta, columns: Record<string, unknown>): Promise<boolean> {
    if (filter === undefined) return true;
    const { column, values: allowed } = parseRealtimeFilter(filter, meta);
    const value = columns[column];
    if (!Object.prototype.hasOwnProperty.call(columns, column) || value === null || value === undefined) return false;
    const type = meta.columns.find((c) => c.name === column)!.type;
    const {
      rows: [row],
    } = await opts.pool.query<{ ok: boolean | null }>(`select ($1::text)::"${type}" = any(($2::text[])::"${type}"[]) as ok`, [
      typeof value === 'string' ? value : JSON.stringify(value),
      allowed,
    ]);
    return row.ok === true;
  }

  /** What the publication streams and how the table logs old rows, now (Realtime reads them at each poll). */
  async function streaming(table: string, meta: TableMeta) {
    const {
      rows: [row],
    } = await opts.pool.query<{ actions: string[]; rls: boolean; identity: string; identity_index: string[] | null }>(
      `select array_remove(array[case when p.pubinsert then 'INSERT' end, case when p.pubupdate then 'UPDATE' end,
                                 case when p.pubdelete then 'DELETE' end], null) as actions,
              c.relrowsecurity as rls, c.relreplident as identity,
              (select array_agg(a.attname::text) from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
                where i.indrelid = c.oid and i.indisreplident) as identity_index
         from pg_publication p, pg_class c where p.pubname = 'supabase_realtime' and c.oid = $1::regclass`,
      [`public."${table}"`],
    );
    // REPLICA IDENTITY DEFAULT: the primary key; FULL: every column; USING INDEX: its columns; NOTHING: none.
    const identity =
      row.identity === 'f'
        ? meta.columns.map((c) => c.name)
        : row.identity === 'i'
          ? (row.identity_index ?? [])
          : row.identity === 'n'
            ? []
            : meta.primaryKey;
    return { actions: new Set(row.actions), rls: row.rls, identity };
  }

  async function deliver(changeId: string): Promise<void> {
    const { rows } = await opts.pool.query<{
      schema_name: string;
      table_name: string;
      type: 'INSERT' | 'UPDATE' | 'DELETE';
      record: Record<string, unknown> | null;
      old_record: Record<string, unknown> | null;
      committed_at: Date;
    }>(`delete from likeness_fake_realtime.changes where id = $1 returning *`, [changeId]);
    const change = rows[0];
    const meta = change && tables.get(change.table_name);
    if (!change || !meta) return;
    const table = await streaming(change.table_name, meta);
    if (!table.actions.has(change.type)) return;
    const only = (r: Record<string, unknown> | null, columns: string[]) => (r ? Object.fromEntries(columns.map((k) => [k, r[k]])) : null);
    // The old record as the WAL holds it: the replica identity's columns.
    const oldIdentity = only(change.old_record, table.identity);
    const data: Record<string, unknown> = {
      schema: change.schema_name,
      table: change.table_name,
      commit_timestamp: change.committed_at.toISOString(),
      type: change.type,
      columns: meta.columns,
      errors: null,
    };
    if (change.type !== 'DELETE') data.record = change.record;
    if (change.type === 'UPDATE') data.old_record = oldIdentity;
    // A DELETE cannot be checked against row-level security, so with it on only the key goes out.
    if (change.type === 'DELETE')
      data.old_record = table.rls
        ? only(
            oldIdentity,
            meta.primaryKey.filter((k) => k in oldIdentity!),
          )
        : oldIdentity;
    const filtered = change.type === 'DELETE' ? oldIdentity! : change.record!;

    for (const conn of [...connections.values()]) {
      for (const channel of [...conn.channels.values()]) {
        const ids: number[] = [];
        for (const sub of channel.subscriptions) {
          if (sub.table !== change.table_name || (sub.event !== '*' && sub.event !== change.type)) continue;
          const reaches =
            (await passesFilter(sub.filter, meta, filtered)) &&
            (change.type === 'DELETE' || (await visible(channel.claims, change.table_name, meta, change.record!)));
          if (reaches) ids.push(sub.id);
        }
        if (ids.length === 0 || conn.channels.get(channel.topic) !== channel) continue;
        deliveries.push({ sub: channel.sub, topic: channel.topic, table: change.table_name, type: change.type });
        send(conn, [channel.joinRef, null, channel.topic, 'postgres_changes', { ids, data }]);
      }
    }
  }

  listener.on('notification', (msg) => {
    if (msg.channel !== CHANNEL || !msg.payload || stopped) return;
    const id = msg.payload;
    queue = queue.then(() => deliver(id)).catch(() => {});
  });

  wss.on('connection', (ws: WebSocket) => {
    const conn: Connection = { id: nextConnectionId++, ws, heartbeats: 0, channels: new Map() };
    connections.set(conn.id, conn);
    // Frames of one connection are handled in the order they arrive (a join may await token checks).
    let inbox: Promise<void> = Promise.resolve();
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        send(conn, [null, null, 'phoenix', 'phx_error', { reason: 'the fake does not serve binary (broadcast) frames' }]);
        return;
      }
      let frame: Frame;
      try {
        frame = JSON.parse(data.toString()) as Frame;
        if (!Array.isArray(frame) || frame.length !== 5) throw new Error('not a vsn 2.0.0 frame');
      } catch {
        ws.close(1003, 'expected vsn 2.0.0 array frames');
        return;
      }
      inbox = inbox.then(() => onFrame(conn, frame)).catch(() => ws.terminate());
    });
    ws.on('close', () => {
      for (const channel of conn.channels.values()) if (channel.expiryTimer) clearTimeout(channel.expiryTimer);
      connections.delete(conn.id);
    });
    ws.on('error', () => {});
  });

  function info(channel: Channel): RealtimeChannelInfo {
    const { topic, joinRef, sub, tokenExpiresAt, accessTokenUpdates, subscriptions } = channel;
    return { topic, joinRef, sub, tokenExpiresAt, accessTokenUpdates, subscriptions };
  }

  function reject(socket: Duplex, status: number, message: string): void {
    socket.end(
      `HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : 'Not Implemented'}\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n${JSON.stringify({ message })}`,
    );
  }

  return {
    handleUpgrade(req, socket, head) {
      const url = new URL(req.url ?? '/', 'http://fake');
      if (url.searchParams.get('apikey') !== opts.anonKey) return reject(socket, 401, 'Invalid API key');
      if (url.searchParams.get('vsn') !== '2.0.0')
        return reject(socket, 501, `The Realtime test fake speaks vsn 2.0.0 only (got ${url.searchParams.get('vsn')})`);
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    },
    connections: () =>
      [...connections.values()].map((c) => ({ id: c.id, heartbeats: c.heartbeats, channels: [...c.channels.values()].map(info) })),
    channels: () => [...connections.values()].flatMap((c) => [...c.channels.values()].map(info)),
    deliveries,
    dropAll() {
      for (const conn of connections.values()) conn.ws.terminate();
    },
    async settled() {
      // A notification is only queued once it arrives; a round trip on the listening connection
      // guarantees every NOTIFY committed before this call has arrived (they come in order).
      await listener.query('select 1');
      await queue;
    },
    async stop() {
      stopped = true;
      for (const conn of connections.values()) conn.ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await queue;
      await listener.end().catch(() => {});
    },
  };
}
