ALTER TABLE "users" ADD COLUMN "verified_email" text;--> statement-breakpoint
CREATE INDEX "users_verified_email_idx" ON "users" USING btree (lower("verified_email"));--> statement-breakpoint
CREATE VIEW "explore_filter_options" AS
WITH RECURSIVE
  gender_values(value) AS (
    SELECT min("gender") FROM "explore_gallery"
    UNION ALL
    SELECT (SELECT min(e."gender") FROM "explore_gallery" e WHERE e."gender" > v.value) FROM gender_values v WHERE v.value IS NOT NULL
  ),
  hair_color_values(value) AS (
    SELECT min("hair_color") FROM "explore_gallery"
    UNION ALL
    SELECT (SELECT min(e."hair_color") FROM "explore_gallery" e WHERE e."hair_color" > v.value) FROM hair_color_values v WHERE v.value IS NOT NULL
  ),
  ethnicity_values(value) AS (
    SELECT min("ethnicity") FROM "explore_gallery"
    UNION ALL
    SELECT (SELECT min(e."ethnicity") FROM "explore_gallery" e WHERE e."ethnicity" > v.value) FROM ethnicity_values v WHERE v.value IS NOT NULL
  ),
  style_values(value) AS (
    SELECT min("style") FROM "explore_gallery"
    UNION ALL
    SELECT (SELECT min(e."style") FROM "explore_gallery" e WHERE e."style" > v.value) FROM style_values v WHERE v.value IS NOT NULL
  )
SELECT
  ARRAY(SELECT value FROM gender_values WHERE value IS NOT NULL ORDER BY value) AS "gender",
  ARRAY(SELECT value FROM hair_color_values WHERE value IS NOT NULL ORDER BY value) AS "hair_color",
  ARRAY(SELECT value FROM ethnicity_values WHERE value IS NOT NULL ORDER BY value) AS "ethnicity",
  ARRAY(SELECT value FROM style_values WHERE value IS NOT NULL ORDER BY value) AS "style";
