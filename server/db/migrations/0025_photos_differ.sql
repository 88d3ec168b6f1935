-- A character whose training photos gave no reference face (they showed different people, so no face agreed):
-- its images get no likeness badge, and the SPA says why where the badge would be (issue 54 item 15). Generated
-- from the reference's own columns, so every writer of the reference (submit, the backfill, the purge) keeps it
-- true; a deleted character's purged reference does not count.
ALTER TABLE "lora_trainings" ADD COLUMN "photos_differ" boolean GENERATED ALWAYS AS (
	"reference_checked_at" IS NOT NULL AND "reference_face" IS NULL AND "files_removed_at" IS NULL
) STORED NOT NULL;
