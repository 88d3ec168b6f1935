-- One shoot view (issue 48): a shoot's photos as both modes show them (common/photo-shoots.ts ShootPhotoView),
-- worked out here once. The local server reads it as the tables' owner; the hosted SPA reads it through
-- PostgREST as the signed-in person (the grants are in supabase/migrations/…_shoot_photo_views_grants.sql).
--
-- private.shoot_photo_queue: for each queued photo, how many photos of any shoot start before it: those ahead
-- of it in the runner's claim order (position, queued_at, id; shootsRepository.claimPhotos) that are queued,
-- claimed but still waiting for a render slot, or abandoned (lease run out). Photos rendering now are not
-- counted. It runs with its owner's rights (it counts everyone's photos, and shows no row of theirs), each
-- count a range of shoot_photos_queue_idx.
CREATE VIEW "private"."shoot_photo_queue" AS
  SELECT sp.id, (
    SELECT count(*)::int FROM public.shoot_photos o
    WHERE o.status IN ('QUEUED', 'RUNNING')
      AND (o.status = 'QUEUED' OR o.started_at IS NULL OR o.lease_expires_at IS NULL OR o.lease_expires_at <= now())
      AND (o.position, o.queued_at, o.id) < (sp.position, sp.queued_at, sp.id)
  ) AS ahead
  FROM public.shoot_photos sp
  WHERE sp.status = 'QUEUED';
--> statement-breakpoint
-- public.shoot_photo_views: every photo with what the page shows of it. It runs with the reader's rights
-- (security_invoker), so row-level security applies to shoot_photos and generations as to any query of them: a
-- person sees their own photos only. A photo is kept while it landed and its generation is still in My
-- Generations; a kept photo shows its image and, once checked, its likeness; a landed photo deleted since
-- shows as deleted, without its image.
CREATE VIEW "shoot_photo_views" WITH (security_invoker = true) AS
  SELECT
    sp.id,
    sp.shoot_id,
    sp.position,
    sp.status,
    sp.prompt,
    sp.width,
    sp.height,
    CASE WHEN sp.status = 'SUCCEEDED' AND g.status = 'ACTIVE' THEN sp.image_url END AS image_url,
    CASE WHEN sp.status = 'SUCCEEDED' AND g.status = 'ACTIVE' THEN sp.generation_id END AS generation_id,
    (sp.status = 'SUCCEEDED' AND g.status IS DISTINCT FROM 'ACTIVE') AS deleted,
    sp.error,
    sp.started_at,
    sp.finished_at,
    q.ahead,
    CASE WHEN sp.status = 'SUCCEEDED' AND g.status = 'ACTIVE' AND g.likeness_verdict IS NOT NULL THEN g.likeness END AS likeness,
    CASE WHEN sp.status = 'SUCCEEDED' AND g.status = 'ACTIVE' THEN g.likeness_verdict END AS likeness_verdict
  FROM public.shoot_photos sp
  LEFT JOIN public.generations g ON g.id = sp.generation_id
  LEFT JOIN private.shoot_photo_queue q ON q.id = sp.id;
