-- A character its owner deleted: the row stays, marked, so generations made with it keep their
-- character's name, and no listing, generation or photo shoot can use it any more. Its files are gone.
ALTER TABLE "lora_trainings" ADD COLUMN "deleted_at" timestamp with time zone;
