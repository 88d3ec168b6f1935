ALTER TABLE "users" ADD COLUMN "erased_at" timestamp with time zone;--> statement-breakpoint
-- Every users row has its user_public_meta row from the start, whoever inserts it (the server, or the hosted
-- SPA's user sync through Supabase, whose role may not write user_public_meta: hence SECURITY DEFINER, in a
-- schema no API exposes).
CREATE SCHEMA IF NOT EXISTS "private";--> statement-breakpoint
CREATE OR REPLACE FUNCTION "private"."users_create_public_meta"() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' AS $$
BEGIN
  INSERT INTO public.user_public_meta (user_id, credits) VALUES (NEW.id, NEW.credits) ON CONFLICT (user_id) DO NOTHING;
  RETURN NEW;
END
$$;--> statement-breakpoint
REVOKE ALL ON FUNCTION "private"."users_create_public_meta"() FROM PUBLIC;--> statement-breakpoint
CREATE TRIGGER "users_create_public_meta" AFTER INSERT ON "users" FOR EACH ROW EXECUTE FUNCTION "private"."users_create_public_meta"();--> statement-breakpoint
INSERT INTO "user_public_meta" ("user_id", "credits") SELECT "id", "credits" FROM "users" ON CONFLICT ("user_id") DO NOTHING;
