-- A paid job's start (migration 0017) commits without waiting for its WAL to reach the disk
-- (docs/decisions/014-generate-path.md, the seventh pass). The WAL is one ordered log: the commit of the job's
-- end (SUCCEEDED with its result, or FAILED with its refund), which still waits for the disk, makes every earlier
-- commit durable with it, and every caller writes that end before the result leaves the server. So a result a
-- user has seen always has its debit on disk; what a crash of the database can lose is a start whose call had
-- not ended, and then it loses the debit, the job and the credits event together: the user is not charged for
-- a call whose result never came. One flush per paid call instead of two. `set_config(..., true)` lasts until
-- the end of the transaction: called inside a caller's transaction, that transaction's commit does not wait
-- either, and the caller must end the job (or write something else durably) before delivering its result.
CREATE OR REPLACE FUNCTION "likeness_start_paid_job"(
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
  -- This transaction's commit does not wait for the disk; see above.
  PERFORM set_config('synchronous_commit', 'off', true);
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
