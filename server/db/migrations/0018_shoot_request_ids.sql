-- A photo shoot's request id (the Start button's idempotency key) is the caller's own: kept apart from the
-- shoot's id and unique per account, so another account's id neither finds nor blocks anything. Shoots made
-- before this were given the request id as their id, so a retry of one of them keeps finding it.
ALTER TABLE "photo_shoots" ADD COLUMN "request_id" uuid;
--> statement-breakpoint
UPDATE "photo_shoots" SET "request_id" = "id";
--> statement-breakpoint
CREATE UNIQUE INDEX "photo_shoots_user_request_key" ON "photo_shoots" USING btree ("user_id","request_id");
