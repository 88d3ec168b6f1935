import { useId, useState, type ReactNode } from 'react';
import { Copy, Download, ImageIcon, ImageOff, Loader2 } from 'lucide-react';
import type { GenerationView } from '@common/generation';
import { errorMessage } from '@/backend/api-error';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { useToast } from '@/components/ui/toast';
import { useBackend } from '@/backend/backend-context';
import { downloadGeneration } from '../api';

export interface ResultPanelProps {
  result: GenerationView | null;
  loading: boolean;
  waiting: number;
  /** The width and height being created, to shape the placeholder. */
  pendingSize: { width: number; height: number } | null;
  /** The last request that failed: its sentence and prompt, shown as the failed item. */
  error: { message: string; prompt: string } | null;
  /** What else can be done with the image shown: the viewer's actions, given by the page (one component for both). */
  actions?: (generation: GenerationView) => ReactNode;
}

const FEEDBACK_MS = 5000;

/** The middle column: 'Start Creating', 'Creating your image...' (+N more in queue) or the latest image. */
export function ResultPanel({ result, loading, waiting, pendingSize, error, actions }: ResultPanelProps) {
  const headingId = useId();
  return (
    <Card role="region" aria-labelledby={headingId} aria-busy={loading} className="flex min-h-[22rem] flex-col p-4 md:min-h-[36rem] md:p-6">
      <h2 id={headingId} className="sr-only">
        Result
      </h2>
      {loading ? (
        <>
          {/* A failure while more images wait stays in view above the next one being made. */}
          {error && <Failed failure={error} compact />}
          <Busy waiting={waiting} size={pendingSize} />
        </>
      ) : error ? (
        <Failed failure={error} />
      ) : result ? (
        <Result generation={result} actions={actions} />
      ) : (
        <div className="flex flex-1 flex-col items-center justify-center gap-4 rounded-lg border border-dashed border-border-strong bg-bg-subtle px-6 py-12 text-center">
          <span className="rounded-2xl bg-brand-soft p-4 text-brand">
            <ImageIcon className="size-9" aria-hidden />
          </span>
          <div>
            <p className="text-lg font-semibold text-fg">Start Creating</p>
            <p className="mt-1 text-sm text-fg-muted">Describe your image and let AI bring it to life</p>
          </div>
        </div>
      )}
    </Card>
  );
}

/** The image that could not be made: what happened in a sentence, and which prompt it was. */
function Failed({ failure, compact = false }: { failure: { message: string; prompt: string }; compact?: boolean }) {
  return (
    <div
      role="alert"
      data-testid="generation-failed"
      className={
        compact
          ? 'mb-4 flex gap-3 rounded-md border border-danger-border bg-danger-soft px-3 py-2 text-sm'
          : 'flex flex-1 flex-col items-center justify-center gap-3 rounded-lg border border-dashed border-danger-border bg-danger-soft px-6 py-12 text-center'
      }
    >
      <ImageOff className={compact ? 'mt-0.5 size-4 shrink-0 text-danger' : 'size-9 text-danger'} aria-hidden />
      <div className="min-w-0">
        <p className={compact ? 'font-medium text-danger' : 'text-base font-semibold text-danger'}>{failure.message}</p>
        <p className={compact ? 'truncate text-xs text-fg-muted' : 'mt-1 line-clamp-2 text-sm text-fg-muted'} title={failure.prompt}>
          {failure.prompt}
        </p>
      </div>
    </div>
  );
}

function Busy({ waiting, size }: { waiting: number; size: { width: number; height: number } | null }) {
  return (
    <div className="flex flex-1 items-center justify-center">
      <div
        className="relative flex w-full max-w-xl items-center justify-center overflow-hidden rounded-lg bg-gradient-to-br from-brand-soft via-bg-muted to-brand-soft"
        style={{ aspectRatio: size ? `${size.width} / ${size.height}` : '1 / 1', maxHeight: '32rem' }}
      >
        <div className="absolute inset-0 animate-pulse bg-white/30" aria-hidden />
        <div role="status" className="relative flex flex-col items-center gap-3 px-4 text-center">
          <Loader2 className="size-9 animate-spin text-brand" aria-hidden />
          <p className="text-base font-semibold text-fg">Creating your image...</p>
          {waiting > 0 && <p className="rounded-full bg-bg/80 px-3 py-1 text-xs font-semibold text-brand">+{waiting} more in queue</p>}
        </div>
      </div>
    </div>
  );
}

function Result({ generation, actions }: { generation: GenerationView; actions?: (generation: GenerationView) => ReactNode }) {
  const { api } = useBackend();
  const toast = useToast();
  const [downloading, setDownloading] = useState(false);
  const image = generation.result.images[0];
  const { width, height } = generation.params.image_size;
  if (!image) return null;

  async function download() {
    setDownloading(true);
    try {
      await downloadGeneration(api, generation.id);
    } catch (err) {
      console.error('Download failed', err);
      toast.show(`Failed to download image: ${errorMessage(err, 'unknown error')}. Please try again.`, {
        tone: 'error',
        durationMs: FEEDBACK_MS,
      });
    } finally {
      setDownloading(false);
    }
  }

  async function copyUrl() {
    try {
      await navigator.clipboard.writeText(new URL(image.url, window.location.origin).href);
      toast.show('Image URL copied', { tone: 'success' });
    } catch (err) {
      console.error('Copy failed', err);
      toast.show('Failed to copy', { tone: 'error' });
    }
  }

  return (
    <div className="flex flex-1 flex-col gap-4">
      <div className="flex flex-1 items-center justify-center rounded-lg bg-bg-subtle p-2">
        <img
          src={image.url}
          alt={generation.params.prompt}
          width={width}
          height={height}
          className="max-h-[32rem] w-auto max-w-full rounded-md object-contain shadow-card"
        />
      </div>
      <div className="flex flex-col gap-3">
        <div className="min-w-0">
          <p className="line-clamp-3 text-sm text-fg" title={generation.params.prompt}>
            {generation.params.prompt}
          </p>
          <p className="mt-1 text-xs text-fg-muted tabular-nums">
            {width}×{height}
            {generation.params.seed ? ` · Seed ${generation.params.seed}` : ''}
          </p>
        </div>
        <div className="flex gap-2">
          <Button variant="primary" onClick={download} busy={downloading} className="flex-1 sm:flex-none">
            {!downloading && <Download className="size-4" aria-hidden />}
            Download
          </Button>
          <Button variant="outline" onClick={copyUrl} className="flex-1 sm:flex-none">
            <Copy className="size-4" aria-hidden />
            Copy URL
          </Button>
        </div>
        {actions?.(generation)}
      </div>
    </div>
  );
}
