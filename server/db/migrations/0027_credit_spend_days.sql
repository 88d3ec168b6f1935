-- Credits page (issue 50, docs/decisions/028-credit-days-and-hosted-history.md), two things every writer of the
-- ledger keeps true without knowing of them (applyChange, likeness_start_paid_job, the admin CLI, the erasure).
--
-- 1. credit_ledger_days: the sum of the ledger's deltas per account, UTC day and kind of line, kept by statement
-- triggers on credit_ledger in the transaction that writes the lines. The spend chart (30 or 90 days) and the
-- period's spend by kind read a few hundred of these rows instead of summing every line of the period (a heavy
-- account's 90 days were ~24,600 lines a request). An insert adds with `delta = delta + excluded.delta` under the
-- row's lock, so parallel inserts of the same day and kind all count; an update takes the old lines out and puts
-- the new ones in; a delete takes its lines out (an account's own deletion removes its days by the cascade).
CREATE TABLE "credit_ledger_days" (
	"user_id" uuid NOT NULL,
	"day" date NOT NULL,
	"entry" text NOT NULL,
	"delta" bigint NOT NULL,
	CONSTRAINT "credit_ledger_days_user_id_day_entry_pk" PRIMARY KEY("user_id","day","entry")
);
--> statement-breakpoint
ALTER TABLE "credit_ledger_days" ADD CONSTRAINT "credit_ledger_days_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
-- One function for the three statement triggers (a trigger with transition tables fires on one event only).
-- Upserts go in key order, so two statements that touch the same days lock them in the same order.
CREATE FUNCTION "private"."credit_ledger_days_count"() RETURNS trigger
  LANGUAGE plpgsql SET search_path = '' AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE public.credit_ledger_days d SET delta = d.delta - o.delta
    FROM (
      SELECT user_id, (created_at AT TIME ZONE 'UTC')::date AS day, entry, sum(delta) AS delta
      FROM old_lines GROUP BY 1, 2, 3
    ) o
    WHERE d.user_id = o.user_id AND d.day = o.day AND d.entry = o.entry;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO public.credit_ledger_days AS d (user_id, day, entry, delta)
    SELECT user_id, (created_at AT TIME ZONE 'UTC')::date, entry, sum(delta)
    FROM new_lines GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (user_id, day, entry) DO UPDATE SET delta = d.delta + excluded.delta;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION "private"."credit_ledger_days_count"() FROM PUBLIC;
--> statement-breakpoint
CREATE TRIGGER "credit_ledger_days_insert" AFTER INSERT ON "credit_ledger"
  REFERENCING NEW TABLE AS new_lines FOR EACH STATEMENT EXECUTE FUNCTION "private"."credit_ledger_days_count"();
--> statement-breakpoint
CREATE TRIGGER "credit_ledger_days_update" AFTER UPDATE ON "credit_ledger"
  REFERENCING OLD TABLE AS old_lines NEW TABLE AS new_lines FOR EACH STATEMENT EXECUTE FUNCTION "private"."credit_ledger_days_count"();
--> statement-breakpoint
CREATE TRIGGER "credit_ledger_days_delete" AFTER DELETE ON "credit_ledger"
  REFERENCING OLD TABLE AS old_lines FOR EACH STATEMENT EXECUTE FUNCTION "private"."credit_ledger_days_count"();
--> statement-breakpoint
-- The lines written before: the triggers exist from here on and this runs in the migration's transaction, whose
-- CREATE TRIGGER holds off every other writer of credit_ledger until it commits, so no line counts twice or never.
INSERT INTO "credit_ledger_days" ("user_id", "day", "entry", "delta")
SELECT "user_id", ("created_at" AT TIME ZONE 'UTC')::date, "entry", sum("delta")
FROM "credit_ledger" GROUP BY 1, 2, 3;
--> statement-breakpoint
-- 2. What a line is for, without its idempotency key: the uuid its key names and what that uuid is (a paid image
-- call's job, a shoot, a shoot's photo, a character's training), a refund naming the debit it gives back. Hosted
-- clients may not read the key (a payment's or a promo code's keys are not theirs to see), so the history's links
-- are worked out from these columns, which they may read.
ALTER TABLE "credit_ledger" ADD COLUMN "subject_type" text GENERATED ALWAYS AS (
	CASE
		WHEN "idempotency_key" ~ '^(refund:)?generation:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN 'generation_job'
		WHEN "idempotency_key" ~ '^(refund:)?(shoot|shoot-cancel):[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN 'shoot'
		WHEN "idempotency_key" ~ '^(refund:)?shoot-photo:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN 'shoot_photo'
		WHEN "idempotency_key" ~ '^(refund:)?training:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN 'training'
	END
) STORED;
--> statement-breakpoint
ALTER TABLE "credit_ledger" ADD COLUMN "subject_id" uuid GENERATED ALWAYS AS (
	CASE
		WHEN "idempotency_key" ~ '^(refund:)?(generation|shoot|shoot-cancel|shoot-photo|training):[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
		THEN right("idempotency_key", 36)::uuid
	END
) STORED;
--> statement-breakpoint
-- credit_history: the credits page's lines as both modes show them, with the link of each (the image its paid
-- call made, the shoot, or the character, while that still exists). The local server reads it as the tables'
-- owner; the hosted SPA reads it through PostgREST as the signed-in person (grants in
-- supabase/migrations/…_credit_history_security.sql). It runs with the reader's rights (security_invoker), so the
-- policies of credit_ledger and of the tables it links to apply as to any query of them.
CREATE VIEW "credit_history" WITH (security_invoker = true) AS
  SELECT
    l.id,
    l.user_id,
    l.created_at,
    l.entry,
    l.reason,
    l.delta,
    l.balance_after,
    CASE l.subject_type
      WHEN 'generation_job' THEN 'image'
      WHEN 'shoot' THEN 'shoot'
      WHEN 'shoot_photo' THEN 'shoot'
      WHEN 'training' THEN 'character'
    END AS link_type,
    CASE l.subject_type
      WHEN 'generation_job' THEN (SELECT j.generation_id FROM public.generation_jobs j WHERE j.id = l.subject_id)
      WHEN 'shoot' THEN (SELECT s.id FROM public.photo_shoots s WHERE s.id = l.subject_id)
      WHEN 'shoot_photo' THEN (SELECT p.shoot_id FROM public.shoot_photos p WHERE p.id = l.subject_id)
      WHEN 'training' THEN (SELECT t.id FROM public.lora_trainings t WHERE t.id = l.subject_id)
    END AS link_id
  FROM public.credit_ledger l;
