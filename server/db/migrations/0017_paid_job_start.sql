-- The start of a paid provider call (a generation, an upscale, an edit, a prompt extraction) in one round trip
-- (docs/decisions/014-generate-path.md): the same statements the start transaction sent one by one, in the
-- same order under the same lock, each planned once per connection. Called in autocommit it is one
-- transaction by itself; inside a transaction it is part of the caller's.
--
-- Whether the instance named `owner` still runs: its database session holds the instance advisory lock
-- (namespace 7310002, INSTANCE_LOCK in server/db/index.ts, and hashtext of the instance id).
CREATE FUNCTION "likeness_instance_alive"("owner" text) RETURNS boolean
LANGUAGE sql STABLE AS $fn$
  select exists (
    select 1 from pg_locks
    where locktype = 'advisory' and granted
      and database = (select oid from pg_database where datname = current_database())
      and classid = 7310002 and objid = hashtext("owner")::oid and objsubid = 2)
$fn$;
--> statement-breakpoint
-- Outcome 'started' (the debit, the balance hosted mode reads, the credits event and the PENDING job leased
-- to `p_lease_owner` are written), or one of 'no_user', 'erased', 'no_source' (`p_source_id`, an upscale's or
-- edit's source, is not an ACTIVE generation of the user), 'too_large' (the source's long side is above
-- `p_source_max_side`), 'busy' (with `p_one_at_a_time`, another PENDING job of this kind of the user is held
-- by a running instance) and 'insufficient', with nothing written. `credits` is the balance after; `source`
-- the source row (`generation`, and `character` when it was made with one). The debit key is new (it names
-- the new job), so it is never a repeat; should it be one, nothing is debited twice.
CREATE FUNCTION "likeness_start_paid_job"(
  "p_user_id" uuid,
  "p_cost" integer,
  "p_reason" text,
  "p_debit_key" text,
  "p_job_id" uuid,
  "p_kind" text,
  "p_input" jsonb,
  "p_provider" text,
  "p_lease_owner" text,
  "p_lease_seconds" double precision,
  "p_one_at_a_time" boolean,
  "p_channel" text,
  "p_source_id" uuid,
  "p_source_max_side" integer
) RETURNS TABLE ("outcome" text, "credits" integer, "source" jsonb)
LANGUAGE plpgsql AS $fn$
DECLARE
  v_credits integer;
  v_erased timestamptz;
  v_balance integer;
  v_source jsonb;
BEGIN
  SELECT u."credits", u."erased_at" INTO v_credits, v_erased FROM "users" u WHERE u."id" = p_user_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'no_user'::text, NULL::integer, NULL::jsonb;
    RETURN;
  END IF;
  -- Erasure marks the row under this same lock, so no paid action starts once it has begun.
  IF v_erased IS NOT NULL THEN
    RETURN QUERY SELECT 'erased'::text, v_credits, NULL::jsonb;
    RETURN;
  END IF;
  IF p_source_id IS NOT NULL THEN
    SELECT jsonb_build_object('generation', to_jsonb(g), 'character', CASE WHEN t."id" IS NULL THEN NULL ELSE to_jsonb(t) END)
    INTO v_source
    FROM "generations" g LEFT JOIN "lora_trainings" t ON t."id" = g."lora_id"
    WHERE g."id" = p_source_id AND g."user_id" = p_user_id AND g."status" = 'ACTIVE';
    IF NOT FOUND THEN
      RETURN QUERY SELECT 'no_source'::text, v_credits, NULL::jsonb;
      RETURN;
    END IF;
    IF greatest((v_source->'generation'->>'width')::integer, (v_source->'generation'->>'height')::integer) > p_source_max_side THEN
      RETURN QUERY SELECT 'too_large'::text, v_credits, v_source;
      RETURN;
    END IF;
  END IF;
  IF p_one_at_a_time AND EXISTS (
    SELECT 1 FROM "generation_jobs" j
    WHERE j."user_id" = p_user_id AND j."kind" = p_kind AND j."status" = 'PENDING'
      AND j."lease_expires_at" > now() AND j."lease_owner" IS NOT NULL
      AND (j."lease_owner" = p_lease_owner OR likeness_instance_alive(j."lease_owner"))
  ) THEN
    RETURN QUERY SELECT 'busy'::text, v_credits, NULL::jsonb;
    RETURN;
  END IF;
  v_balance := v_credits - p_cost;
  IF v_balance < 0 THEN
    RETURN QUERY SELECT 'insufficient'::text, v_credits, NULL::jsonb;
    RETURN;
  END IF;
  -- created_at is the moment the change was applied (the row is locked): the ledger's order is the balance's.
  INSERT INTO "credit_ledger" ("user_id", "delta", "kind", "reason", "idempotency_key", "balance_after", "created_at")
  VALUES (p_user_id, -p_cost, 'debit', p_reason, p_debit_key, v_balance, clock_timestamp())
  ON CONFLICT ("idempotency_key") DO NOTHING;
  IF FOUND THEN
    UPDATE "users" SET "credits" = v_balance, "updated_at" = now() WHERE "id" = p_user_id;
    INSERT INTO "user_public_meta" ("user_id", "credits") VALUES (p_user_id, v_balance)
    ON CONFLICT ("user_id") DO UPDATE SET "credits" = excluded."credits";
    -- The credits event, as EventBus.notification writes it (server/realtime/event-bus.ts).
    PERFORM pg_notify(p_channel, json_build_object('userId', p_user_id, 'event', json_build_object('type', 'credits', 'credits', v_balance))::text);
  ELSE
    v_balance := v_credits;
  END IF;
  INSERT INTO "generation_jobs" ("id", "user_id", "kind", "cost", "input", "provider", "lease_owner", "lease_expires_at")
  VALUES (p_job_id, p_user_id, p_kind, p_cost, p_input, p_provider, p_lease_owner, now() + make_interval(secs => p_lease_seconds));
  RETURN QUERY SELECT 'started'::text, v_balance, v_source;
END
$fn$;
