import { useState } from 'react';
import { Link } from 'react-router';
import { AlertCircle, ArrowLeft, Download, Loader2, Trash2 } from 'lucide-react';
import { LIKENESS_TEXTS } from '@common/likeness';
import { shootArchiveName, shootProgress, SHOOT_TEXTS, type ShootPhotoView, type ShootView } from '@common/photo-shoots';
import { thumbUrl } from '@common/media';
import { ApiError, errorMessage } from '@/backend/api-error';
import { useBackend } from '@/backend/backend-context';
import { LikenessBadge } from '@/components/likeness-badge';
import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { PageSpinner } from '@/components/ui/spinner';
import { EmptyState, ErrorState } from '@/components/ui/states';
import { cancelShoot, shootArchivePath, useShoot } from '../api';
import { DownloadAllButton } from '@/components/download-all-button';
import { TimeLeft } from '@/components/time-left';

const ENDED_WORDS: Record<Exclude<ShootView['status'], 'RUNNING'>, string> = {
  COMPLETED: 'Shoot complete',
  FAILED: 'Shoot failed: every photo was refunded',
  CANCELLED: 'Shoot cancelled',
};

/** The words under a shoot's title: 'k of N ready', 'm failed, refunded'; and its estimate while it runs. */
export function progressWords(shoot: ShootView): { words: string[]; msLeft: number | null } {
  const p = shootProgress(shoot.photos, shoot.recent_photo_ms ?? undefined);
  const words = [SHOOT_TEXTS.ready(p.ready, p.total)];
  if (p.failed) words.push(SHOOT_TEXTS.failed(p.failed));
  if (p.deleted) words.push(SHOOT_TEXTS.deleted(p.deleted));
  if (shoot.retaken > 0) words.push(LIKENESS_TEXTS.retaken(shoot.retaken));
  return { words, msLeft: shoot.status === 'RUNNING' ? p.msLeft : null };
}

export function PhotoTile({ photo, media }: { photo: ShootPhotoView; media: (path: string) => string }) {
  const ratio = { aspectRatio: `${photo.width} / ${photo.height}` };
  if (photo.status === 'SUCCEEDED' && photo.image_url) {
    return (
      <a
        href={media(photo.image_url)}
        target="_blank"
        rel="noreferrer"
        className="relative block overflow-hidden rounded-md bg-bg-muted"
        style={ratio}
        data-testid="shoot-tile"
        data-status="ready"
      >
        <img src={media(thumbUrl(photo.image_url, 384))} alt={photo.prompt} className="h-full w-full object-cover" />
        <LikenessBadge likeness={photo.likeness} verdict={photo.likeness_verdict} className="absolute bottom-1.5 left-1.5 shadow-sm" />
      </a>
    );
  }
  const label =
    photo.status === 'RUNNING'
      ? 'Developing…'
      : photo.status === 'QUEUED'
        ? photo.ahead
          ? `Queued · ${SHOOT_TEXTS.ahead(photo.ahead)}`
          : 'Queued'
        : photo.status === 'FAILED'
          ? (photo.error ?? 'Failed; refunded.')
          : photo.status === 'SUCCEEDED'
            ? 'Deleted from My Generations.'
            : 'Cancelled; refunded.';
  return (
    <div
      className="flex flex-col items-center justify-center gap-2 rounded-md border border-dashed border-border-strong bg-bg-muted p-3 text-center text-xs text-fg-muted"
      style={ratio}
      data-testid="shoot-tile"
      data-status={photo.deleted ? 'deleted' : photo.status.toLowerCase()}
    >
      {photo.status === 'RUNNING' && <Loader2 className="size-5 animate-spin text-brand" aria-hidden />}
      {photo.status === 'FAILED' && <AlertCircle className="size-5 text-danger" aria-hidden />}
      {photo.deleted && <Trash2 className="size-5" aria-hidden />}
      <span>{label}</span>
    </div>
  );
}

/** /app/photo-shoots/<id>: a tile per photo that turns into the image as it lands, live. */
export function ShootPageView({ id }: { id: string }) {
  const { api } = useBackend();
  const query = useShoot(id);
  const [cancelling, setCancelling] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);

  if (query.isPending) return <PageSpinner />;
  if (query.isError) {
    if (query.error instanceof ApiError && query.error.status === 404) {
      return <EmptyState title="There is no such photo shoot." action={<Link to="/app/photo-shoots">All photo shoots</Link>} />;
    }
    return <ErrorState title="Failed to load the photo shoot" onRetry={() => void query.refetch()} />;
  }
  const shoot = query.data;
  const ready = shoot.photos.filter((p) => p.status === 'SUCCEEDED' && !p.deleted).length;

  const progress = progressWords(shoot);
  const cancel = async () => {
    setCancelling(true);
    setError(null);
    try {
      await cancelShoot(api, shoot.id);
      await query.refetch();
      setConfirming(false);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setCancelling(false);
    }
  };
  const notStarted = shoot.photos.filter((p) => p.status === 'QUEUED').length;
  const running = shoot.photos.filter((p) => p.status === 'RUNNING').length;
  const asking = confirming && shoot.status === 'RUNNING';

  return (
    <div className="flex flex-col gap-6">
      <div>
        <Link to="/app/photo-shoots" className="mb-3 inline-flex items-center gap-1 text-sm text-fg-muted hover:text-fg">
          <ArrowLeft className="size-4" aria-hidden /> All photo shoots
        </Link>
        <div className="flex flex-wrap items-end justify-between gap-4">
          <div>
            <h1 className="text-2xl font-bold md:text-3xl">{shoot.pack_name}</h1>
            <p className="mt-1 text-sm text-fg-muted">
              {shoot.character_name} · {shoot.status === 'RUNNING' ? 'Shooting now' : ENDED_WORDS[shoot.status]}
            </p>
            <p className="mt-2 text-base font-medium" aria-live="polite" data-testid="shoot-progress">
              {progress.words.join(' · ')}
              {progress.msLeft !== null && (
                <>
                  {' · '}
                  <TimeLeft msLeft={progress.msLeft} />
                </>
              )}
            </p>
          </div>
          <div className="flex gap-2">
            {shoot.status === 'RUNNING' && (
              <Button
                variant="outline"
                onClick={() => {
                  setError(null);
                  setConfirming(true);
                }}
              >
                {SHOOT_TEXTS.cancel}
              </Button>
            )}
            {ready > 0 && (
              <DownloadAllButton
                path={shootArchivePath(shoot.id)}
                fallbackName={shootArchiveName(shoot.character_name, shoot.pack_name)}
                icon={<Download className="size-4" aria-hidden />}
              />
            )}
          </div>
        </div>
      </div>
      {error && !asking && (
        <Banner tone="red" onDismiss={() => setError(null)}>
          {error}
        </Banner>
      )}
      {/* The question follows the shoot live: a photo that starts meanwhile leaves the refund; a shoot that ends closes it. */}
      <Dialog open={asking} onOpenChange={(open) => !cancelling && setConfirming(open)} title={SHOOT_TEXTS.cancel} hideTitle>
        <p className="pr-6 text-sm leading-relaxed" data-testid="cancel-shoot-question">
          {SHOOT_TEXTS.cancelQuestion(notStarted, running)}
        </p>
        {error && (
          <p role="alert" className="mt-3 text-sm text-danger">
            {error}
          </p>
        )}
        <div className="mt-5 flex flex-wrap justify-end gap-2">
          <Button variant="outline" onClick={() => setConfirming(false)} disabled={cancelling}>
            {SHOOT_TEXTS.keepShooting}
          </Button>
          <Button variant="danger" busy={cancelling} onClick={() => void cancel()}>
            {SHOOT_TEXTS.cancel}
          </Button>
        </div>
      </Dialog>
      <ul className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-4 xl:grid-cols-5" aria-label="Photos">
        {shoot.photos.map((photo) => (
          <li key={photo.id}>
            <PhotoTile photo={photo} media={api.mediaUrl} />
          </li>
        ))}
      </ul>
    </div>
  );
}
